"""Each setting, ``%%dsh`` option and ``%dsh`` command is declared once; the traits, the parser,
the help and the usage errors come from that declaration."""

from __future__ import annotations

from dataclasses import fields

import pytest
from IPython.core.error import UsageError

from dsh_notebook.kernel.cell_options import RunOptions, parse_cell_options
from dsh_notebook.kernel.magics import DshMagics
from dsh_notebook.kernel.settings import KernelSettings, setting_traits


def test_every_setting_is_a_config_trait_with_the_declared_default_and_help() -> None:
    traits = DshMagics.class_traits(config=True)
    for f in fields(KernelSettings):
        trait = traits[f.name]
        assert trait.default_value == f.default, f.name
        assert trait.help == f.metadata["help"], f.name
    assert set(setting_traits()) == {f.name for f in fields(KernelSettings)}


def test_a_literal_setting_becomes_an_enum_that_refuses_other_values() -> None:
    magics = DshMagics(shell=None)
    try:
        magics.mode = "wait"
        assert magics.settings().mode == "wait"
        with pytest.raises(Exception, match="mode"):
            magics.mode = "sometimes"
        magics.api_key = "sk-declared-once"
        assert "sk-declared-once" not in repr(magics.api_key)  # a Secret, masked
    finally:
        magics.close()


def test_every_cell_option_parses_into_its_field() -> None:
    line = (
        "-s s1 --new --wait -o h --image a --image b --model m --effort low --cwd /w "
        "--on-approval reject --format text --keep-widget --force --show-context"
    )
    options = parse_cell_options(DshMagics.dsh, line)
    assert options == RunOptions(
        session="s1", new=True, wait=True, out="h", images=("a", "b"), model="m", effort="low",
        cwd="/w", on_approval="reject", format="text", keep_widget=True, force=True,
        show_context=True,
    )  # fmt: skip
    assert parse_cell_options(DshMagics.dsh, "") == RunOptions()
    for f in fields(RunOptions):
        assert f.metadata["flags"][-1] in (DshMagics.dsh.__doc__ or ""), f.name


def test_a_bad_cell_option_is_a_one_line_usage_error() -> None:
    with pytest.raises(UsageError) as caught:
        parse_cell_options(DshMagics.dsh, "--on-approval maybe")
    assert "\n" not in str(caught.value)
