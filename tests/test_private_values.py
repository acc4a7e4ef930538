"""Private values (issue 49 item 1, the values): a variable matching ``DshMagics.private`` is
listed by name and type only, never described, refused in ``{name}``, masked where its value is
printed, and named in the context block so the model knows what is withheld. Unit level: the
namespace functions, the context block and the masking policy the kernel builds."""

from __future__ import annotations

from dsh_notebook.context.notebook_context import NotebookFacts, notebook_context_block
from dsh_notebook.context.private import (
    interpolation_refusal,
    is_private,
    private_names,
    private_texts,
    private_values,
)
from dsh_notebook.notebook_tools.variables import describe_variable, notebook_variables
from dsh_notebook.runtime import Masking, redact

PRIVATE = ("payroll*", "*_secret")
NS = {
    "payroll": "PAYROLL-CANARY-93817",
    "payroll_2026": {"alice": 91234.5},
    "db_secret": "s3cr3t-canary-value-771",
    "sales": [1, 2, 3],
    "_payroll": "not a variable of the person's",
}


def test_names_match_by_pattern_and_attribute_paths_by_their_variable() -> None:
    assert private_names(NS, PRIVATE) == ["payroll", "payroll_2026", "db_secret"]
    assert is_private("payroll.upper", PRIVATE) and not is_private("sales", PRIVATE)
    assert private_names(NS, ()) == [] and not is_private("payroll", ())


def test_listed_by_name_and_type_only_and_never_described() -> None:
    listing = notebook_variables(NS, private=PRIVATE)
    assert "payroll | str | private | private | (withheld)" in listing
    assert "db_secret | str | private" in listing and "sales | list | len 3" in listing
    assert "PAYROLL-CANARY" not in listing and "s3cr3t" not in listing and "91234" not in listing
    assert "withheld by the user" in listing
    for name in ("payroll", "payroll.upper", " db_secret"):
        found, text = describe_variable(NS, name, private=PRIVATE)
        assert not found and "is private" in text and "Do not ask for it" in text, text
        assert "CANARY" not in text and "canary" not in text
    assert describe_variable(NS, "sales", private=PRIVATE)[0]
    # without the setting, nothing changes
    assert "PAYROLL-CANARY-93817" in notebook_variables(NS)


def test_printed_values_are_masked_under_their_name() -> None:
    policy = Masking.build(private_values(NS, PRIVATE), environ={}, private=PRIVATE)
    printed = "PAYROLL-CANARY-93817 s3cr3t-canary-value-771\n{'alice': 91234.5}\nsales [1, 2, 3]"
    masked = redact(printed, policy)
    assert masked == (
        "[masked: private payroll] [masked: private db_secret]\n"
        "[masked: private payroll_2026]\nsales [1, 2, 3]"
    )
    assert redact("PAYROLL-CANARY", policy) == "[masked: private payroll]"  # a piece of it
    assert private_texts(7) == [] and private_texts(52000) == ["52000"]


def test_the_context_block_names_what_is_withheld_and_a_reference_is_refused() -> None:
    block = notebook_context_block(NotebookFacts(private=("payroll", "db_secret")))
    assert "Private (withheld from you by the user; do not ask for their values): " in block
    assert "`payroll`, `db_secret`" in block
    line = interpolation_refusal("payroll")
    assert "\n" not in line and line.startswith("{payroll} is private")
