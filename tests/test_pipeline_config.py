"""Study configs: resolution, precedence, grids, and every bad input of issue 3 section 2.

Each bad input must end with exit code 2, exactly one line on stderr naming the
file (or option), the field, the bad value and what is allowed, and nothing
written to disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_util import cli, write_study

from engine import registry
from pipeline.config import load_study
from pipeline.errors import BadInput
from pipeline.work_units import UnitPlan, variant_dir

GOOD = """
study: s1
game: perpetual_motion
deals: 1000
seed: 5
batch_size: 300
variants:
  clarke: {preset: clarke}
  masten_nc: {preset: masten, cascade: false}
"""


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")


def test_resolution_and_precedence(tmp_path):
    """defaults < preset < variant overrides < --set; every variant fully resolved."""
    st = load_study(write_study(tmp_path / "s.yaml", GOOD))
    assert list(st.variants) == ["clarke", "masten_nc"]
    m = st.variants["masten_nc"].rules
    assert (m.cascade, m.gather) == (False, "pile1_bottom_up")  # override beats preset, preset beats default
    st2 = load_study(tmp_path / "s.yaml", sets=["cascade=true", "max_rounds=50"], deals=10, seed=7, batch_size=4)
    assert all(v.rules.cascade is True and v.rules.max_rounds == 50 for v in st2.variants.values())
    assert (st2.source.count, st2.source.seed, st2.batch_size) == (10, 7, 4)
    assert st.fingerprint() != st2.fingerprint()
    assert st.fingerprint() == load_study(tmp_path / "s.yaml").fingerprint()
    units = list(UnitPlan(st))
    assert len(units) == 2 * 4 and sum(u.count for u in units) == 2000
    assert [(u.first, u.last) for u in units if u.variant == "clarke"] == [(0, 299), (300, 599), (600, 899), (900, 999)]


def test_grid_names_and_values(tmp_path):
    st = load_study(
        write_study(
            tmp_path / "g.yaml",
            """
        study: g
        game: perpetual_motion
        deals: 10
        variants: {base: {}}
        grid:
          cascade: [false, true]
          gather: [pile1_bottom_up, pile4_top_down]
        """,
        )
    )
    names = list(st.variants)
    assert names == [
        "base",
        "cascade=false,gather=pile1_bottom_up",
        "cascade=false,gather=pile4_top_down",
        "cascade=true,gather=pile1_bottom_up",
        "cascade=true,gather=pile4_top_down",
    ]
    v = st.variants["cascade=true,gather=pile4_top_down"].rules
    assert (v.cascade, v.gather) == (True, "pile4_top_down")
    assert variant_dir("cascade=false,gather=pile1_bottom_up") == "variant=cascade%3Dfalse%2Cgather%3Dpile1_bottom_up"


def test_grid_config_covers_every_switch_combination():
    """The grid is every combination of the forced automaton's rule switches (the solver's are not in it)."""
    st = load_study("configs/perpetual_motion_grid.yaml")
    sw = st.game.switches()
    expected = 1
    for name, s in sw.items():
        if s.kind == "bool":
            expected *= 2
        elif s.kind == "choice" and name != "strategy":
            expected *= len([c for c in s.choices if c != "any"])  # direction: any is free play only
    assert len(st.variants) == expected == 128
    assert len({tuple(sorted(v.rules_dict().items())) for v in st.variants.values()}) == 128


def test_shipped_configs_validate(capsys):
    for path in sorted(str(p) for p in Path("configs").glob("*.yaml")):
        code, out, err = cli(["validate", path], capsys)
        assert code == 0, err
        assert "work units" in out
    st = load_study("configs/perpetual_motion.yaml")
    assert st.reference["clarke"]["win_rate"] == 0.5455 and st.source.count == 100_000
    assert set(st.variants) == {"clarke", "masten", "pysolfc"}


def test_deals_file_and_microsoft_sources(tmp_path, fake):
    from engine.cards import format_cards
    from engine.deals import seeded_deals

    decks = seeded_deals(registry.get_game("fake").deck, 1, 0, 3)
    (tmp_path / "d.txt").write_text("# three deals\n\n" + "\n".join(format_cards(d) for d in decks) + "\n")
    st = load_study(
        write_study(
            tmp_path / "f.yaml",
            """
        study: f
        game: fake
        deals_file: d.txt
        variants: {a: {}}
        """,
        )
    )
    assert st.source.kind == "file" and st.source.count == 3
    st = load_study(
        write_study(
            tmp_path / "m.yaml",
            """
        study: m
        game: fake
        microsoft_deals: "1-5,11982"
        batch_size: 4
        variants: {a: {}}
        """,
        )
    )
    units = list(UnitPlan(st))
    assert [(u.first, u.last, u.count) for u in units] == [(1, 4, 4), (5, 11982, 2)]


# --- bad input ----------------------------------------------------------------------------

BASE = {
    "study": "study: s",
    "game": "game: perpetual_motion",
    "deals": "deals: 100",
    "variants": "variants:\n  a: {preset: clarke}",
}


def _yaml(**parts: str | None) -> str:
    merged = {**BASE, **parts}
    return "\n".join(v for v in merged.values() if v is not None) + "\n"


DEALS_BAD_CARD = (
    "QD JD 5D 5C 6D AD QH 6C 8D TC 2D AS TH AH KC 9S 3D 8S 4C 5S 8C 7H 2C TD TS JS 2S AC 3H KS 3C KD "
    "7S 9D 4S JC QS 9H 8H 7C 7D 6S JH 4H KH 9C 4D QC 5H 6H 3S ZZ"
)

CASES = [
    # id, study text (None: no file), extra args, substrings the one line must contain
    ("missing-file", None, [], ["nope.yaml", "no such study file", "allowed"]),
    ("not-yaml", "study: [unclosed\ngame: x\n", [], ["s.yaml", "line", "not valid YAML"]),
    ("not-mapping", "- a\n- b\n", [], ["s.yaml", "not a mapping", "allowed"]),
    ("unknown-key", _yaml(extra="colour: red"), [], ["line 6", "'colour'", "unknown key", "allowed: study"]),
    ("unknown-game", _yaml(game="game: nope"), [], ["line 2", "'game'", "'nope'", "allowed: perpetual_motion"]),
    (
        "unknown-switch",
        _yaml(variants="variants:\n  a: {colour: red}"),
        [],
        ["line 5", "variants.a.colour", "unknown switch", "allowed: preset, discard"],
    ),
    ("wrong-type-deals", _yaml(deals="deals: many"), [], ["line 3", "'deals'", "'many'", "not an integer"]),
    (
        "wrong-type-switch",
        _yaml(variants="variants:\n  a: {cascade: 3}"),
        [],
        ["line 5", "variants.a.cascade", "3", "allowed: true, false"],
    ),
    ("deals-zero", _yaml(deals="deals: 0"), [], ["line 3", "'deals'", "0", "out of range", "allowed"]),
    ("batch-size-zero", _yaml(extra="batch_size: 0"), [], ["line 6", "'batch_size'", "0", "allowed"]),
    ("seed-negative", _yaml(extra="seed: -1"), [], ["line 6", "'seed'", "-1", "0..2^64-1"]),
    ("seed-too-big", _yaml(extra=f"seed: {2**64}"), [], ["'seed'", str(2**64), "0..2^64-1"]),
    (
        "unknown-preset",
        _yaml(variants="variants:\n  a: {preset: nobody}"),
        [],
        ["line 5", "variants.a.preset", "'nobody'", "allowed: clarke, masten, pysolfc"],
    ),
    (
        "grid-key-not-switch",
        _yaml(variants=None, extra="grid:\n  colour: [red]"),
        [],
        ["line 5", "grid.colour", "not a switch", "allowed: preset, discard"],
    ),
    (
        "grid-value-not-allowed",
        _yaml(variants=None, extra="grid:\n  gather: [pile4_bottom_up, sideways]"),
        [],
        ["line 5", "grid.gather.1", "'sideways'", "allowed: pile4_bottom_up"],
    ),
    ("no-variants", _yaml(variants=None), [], ["'variants'", "no variants", "allowed"]),
    ("empty-variants", _yaml(variants="variants: {}"), [], ["'variants'", "no variants", "allowed"]),
    (
        "two-variants-one-name",
        _yaml(variants="variants:\n  a: {preset: clarke}\n  a: {preset: masten}"),
        [],
        ["line 6", "variants.a", "given twice", "allowed: each name once"],
    ),
    ("deals-and-deals-file", _yaml(extra="deals_file: d.txt"), [], ["'deals_file'", "both", "allowed: exactly one"]),
    ("deals-file-bad-card", _yaml(deals="deals_file: d.txt"), [], ["d.txt, line 3", "'ZZ'", "deals_file", "allowed"]),
    ("deals-file-missing", _yaml(deals="deals_file: missing.txt"), [], ["missing.txt", "no such deals file"]),
    ("study-escapes", _yaml(study="study: ../evil"), [], ["line 1", "'study'", "'../evil'", "allowed: letters"]),
    (
        "microsoft-not-allowed",
        _yaml(deals='microsoft_deals: "1-10"'),
        [],
        ["'microsoft_deals'", "no Microsoft deal numbers", "allowed"],
    ),
    ("set-malformed", _yaml(), ["--set", "cascade"], ["--set", "'cascade'", "malformed", "key=value"]),
    ("set-unknown-switch", _yaml(), ["--set", "colour=red"], ["--set", "'colour'", "not known", "allowed: discard"]),
    ("set-bad-value", _yaml(), ["--set", "cascade=maybe"], ["--set", "'maybe'", "allowed: true, false"]),
    (
        "reference-no-variant",
        _yaml(extra="reference:\n  zzz: {win_rate: 0.5}"),
        [],
        ["line 7", "reference.zzz", "names no variant", "allowed: a"],
    ),
    (
        "reference-bad-rate",
        _yaml(extra="reference:\n  a: {win_rate: 54.5}"),
        [],
        ["reference.a.win_rate", "54.5", "out of range", "0..1"],
    ),
    (
        "reference-bad-context",
        _yaml(extra="reference:\n  a: {win_rate: 0.5, context: maybe}"),
        [],
        ["reference.a.context", "'maybe'", "not true or false"],
    ),
    ("option-deals-zero", _yaml(), ["--deals", "0"], ["--deals", "0", "out of range"]),
    ("option-backend", _yaml(), ["--backend", "spark"], ["--backend", "'spark'", "allowed: ray, serial"]),
    ("option-deals-not-int", _yaml(), ["--deals", "lots"], ["--deals", "lots"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_exit_2_one_line_nothing_written(case, tmp_path, capsys, monkeypatch):
    name, text, extra, expected = case
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.txt").write_text("# deals\n\n" + DEALS_BAD_CARD + "\n")
    study = tmp_path / ("nope.yaml" if text is None else "s.yaml")
    if text is not None:
        study.write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "out", *extra], capsys)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for s in expected:
        assert s in lines[0], (s, lines[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written, not even results/
    # validate reports the same problem (options it does not have aside)
    if not any(a in extra for a in ("--backend", "--out")):
        code, _, err2 = cli(["validate", study, *extra], capsys)
        assert code == 2 and err2.strip() == lines[0]


def test_out_is_a_file(tmp_path, capsys):
    study = write_study(tmp_path / "s.yaml", _yaml())
    (tmp_path / "out").write_text("not a folder")
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "out"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--out" in err and "is a file" in err and "allowed" in err
    assert (tmp_path / "out").read_text() == "not a folder"


def test_out_not_a_run_folder_is_refused(tmp_path, capsys):
    study = write_study(tmp_path / "s.yaml", _yaml())
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "precious.txt").write_text("keep")
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "out", "--fresh"], capsys)
    assert code == 2 and "holds no run.json" in err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["precious.txt"]


def test_bad_input_from_the_loader_is_one_line(tmp_path):
    """Direct API: BadInput messages never span lines (they are printed as one)."""
    for text in (_yaml(deals="deals: 1.5"), _yaml(variants="variants: [a, b]"), _yaml(extra="grid: {}")):
        with pytest.raises(BadInput) as info:
            load_study(write_study(tmp_path / "x.yaml", text))
        assert "\n" not in str(info.value) and "allowed" in str(info.value)


def test_integer_switch_with_listed_values():
    """An integer switch that allows only some values says exactly which, and refuses the ones between."""
    from engine.rules import RuleError, switches

    piles = switches(registry.get_game("auld_lang_syne").rules_type)["piles"]
    assert piles.allowed() == "4, 6"
    assert piles.coerce("6") == 6 and piles.coerce(4) == 4
    for bad in (5, "5", 3, 7, True):
        with pytest.raises(RuleError, match=r"switch 'piles': value .* is not allowed; allowed: 4, 6"):
            piles.coerce(bad)


def test_unreachable_ray_address_exit_2_at_once(tmp_path, capsys, monkeypatch):
    """A Ray address where nothing listens is refused in seconds (ray.init alone retries for minutes)."""
    import socket
    import time

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.chdir(tmp_path)
    study = write_study(tmp_path / "s.yaml", _yaml())
    for address, expected in (
        (f"127.0.0.1:{port}", f"nothing answers at 127.0.0.1:{port}"),
        ("nonsense", "'nonsense' is not an address"),
    ):
        t0 = time.perf_counter()
        code, _, err = cli(["run", study, "--address", address, "--out", tmp_path / "out"], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "option --address" in err and expected in err and "allowed" in err, err
        assert time.perf_counter() - t0 < 30
        assert not (tmp_path / "out").exists()  # nothing written
