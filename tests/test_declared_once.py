"""Each setting, ``%%dsh`` option and ``%dsh`` command is declared once; the traits, the parser,
the help and the usage errors come from that declaration."""

from __future__ import annotations

from dataclasses import fields
from types import SimpleNamespace

import pytest
from IPython.core.error import UsageError

from dsh_notebook.kernel.entry.commands import COMMANDS, help_text
from dsh_notebook.kernel.entry.magics import DshMagics
from dsh_notebook.kernel.options.cell_options import RunOptions, parse_cell_options
from dsh_notebook.kernel.options.settings import KernelSettings, setting_traits


def test_every_setting_is_a_config_trait_with_the_declared_default_and_help() -> None:
    traits = DshMagics.class_traits(config=True)
    for f in fields(KernelSettings):
        trait = traits[f.name]
        default = trait.default()  # a list trait (a tuple setting) holds a list
        assert (tuple(default) if isinstance(default, list) else default) == f.default, f.name
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


def test_dsh_help_lists_every_declared_command_with_its_usage() -> None:
    text = help_text()
    listed = [
        line.split()[0]
        for line in text.splitlines()[1:]
        if line.startswith("  ") and line[2] != " "
    ]
    assert listed[:-1] == list(COMMANDS) and listed[-1] == "/command"
    for command in COMMANDS.values():
        assert f"  {command.usage().removeprefix('%dsh ')}" in text
    assert "export [ID] [--format md|text|json] [--to FILE]" in text


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("sessions", ["--every"]),
        ("new", ["a", "b"]),
        ("resume", []),
        ("allow", []),
        ("allow", ["a1", "--note", "x"]),
        ("reject", ["a1", "--run"]),
        ("reject", ["a1", "--note"]),
        ("answer", ["q1"]),
        ("dismiss", []),
        ("export", ["--format", "pdf"]),
        ("export", ["a", "b"]),
        ("key", ["sk-typed-into-a-cell"]),
        ("status", ["extra"]),
    ],
)
def test_a_usage_error_is_one_line_with_the_declared_usage(name: str, argv: list[str]) -> None:
    command = COMMANDS[name]
    with pytest.raises(UsageError) as caught:
        command(SimpleNamespace(), argv)
    message = str(caught.value)
    assert "\n" not in message and f"usage: {command.usage()}" in message
    assert "sk-typed-into-a-cell" not in message


def test_arguments_parse_into_the_commands_typed_declaration() -> None:
    exported = COMMANDS["export"].parse(["--to", "out.json", "s1", "--format", "json"])
    assert (exported.id, exported.format, exported.to) == ("s1", "json", "out.json")
    assert COMMANDS["export"].parse([]).format == "md"
    answered = COMMANDS["answer"].parse(["q1", "East", "--and-free-text"])
    assert answered.choices == ("East", "--and-free-text")
    assert COMMANDS["allow"].parse(["--run", "a2"]).run is True
