"""Every secret masked, not only the key (issue 49 item 2): the one policy
(:func:`dsh_notebook.runtime.redact` with a :class:`~dsh_notebook.runtime.Masking`) masks the values
of secret-looking environment variables (whole and by pieces of 8 or more), the well-known
credential shapes and the person's own patterns, each under a label naming what it was; and it
leaves ordinary data alone (hex ids, URLs, base64 figures, inlined or not)."""

from __future__ import annotations

import base64
import hashlib
import random
import uuid

import pytest

from dsh_notebook.runtime import Masking, Secret, redact
from dsh_notebook.runtime.mask_policy import secret_environment

from .helpers.secret_canaries import (
    AWS_KEY_ID,
    CANARY_CODE,
    ENV_NAME,
    ENV_TOKEN,
    GITHUB_TOKEN,
    LABELS,
    PRIVATE_KEY,
    PRIVATE_KEY_BODY,
    leaked,
)

ENVIRON = {
    ENV_NAME: ENV_TOKEN,
    "DB_PASSWORD": "correct-horse-battery",
    "STRIPE_SECRET": "sk_live_51HcanaryStripe",
    "MY_PAT": "pat-9f8e7d6c5b4a3921",
    "FEATURE_KEY": "on",  # too short to be told from ordinary text
    "HOME": "/home/person",  # not a secret name
    "PATH": "/usr/bin:/bin",
}


def policy(**kw: object) -> Masking:
    return Masking.build([(Secret("sk-the-deepseek-key-0000"), "DEEPSEEK_API_KEY")],
                         environ=ENVIRON, **kw)  # type: ignore[arg-type]  # fmt: skip


def test_secret_looking_environment_values_are_named() -> None:
    found = dict((name, value) for value, name in secret_environment(environ=ENVIRON))
    assert set(found) == {ENV_NAME, "DB_PASSWORD", "STRIPE_SECRET", "MY_PAT"}
    assert set(dict((n, v) for v, n in secret_environment(["*_PAT"], ENVIRON))) == {"MY_PAT"}
    printed = f"{ENV_TOKEN}\n{ENV_TOKEN[:12]}\n{ENV_TOKEN[12:]}\npw=correct-horse-battery on"
    masked = redact(printed, policy())
    assert masked == (
        "[masked: WAREHOUSE_TOKEN]\n[masked: WAREHOUSE_TOKEN]\n[masked: WAREHOUSE_TOKEN]\n"
        "pw=[masked: DB_PASSWORD] on"
    )
    # the key keeps its own name, a piece of it too; shorter pieces are kept
    assert redact("k=sk-the-deepseek", policy()) == "k=[masked: DEEPSEEK_API_KEY]"
    assert redact(f"t={ENV_TOKEN[:7]}", policy()) == f"t={ENV_TOKEN[:7]}"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (AWS_KEY_ID, "AWS access key"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEYZ", "AWS secret key"),
        (GITHUB_TOKEN, "GitHub token"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GitHub token"),
        ("glpat-xC4nary9GitLabTok3nZZ", "GitLab token"),
        ("xoxb-1234567890-0987654321-C4naryS1ackT0ken", "Slack token"),
        (PRIVATE_KEY, "private key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJlX2NhbmFyeQ", "JWT"),
    ],
)
def test_each_credential_shape_is_masked_with_its_kind(text: str, label: str) -> None:
    masked = redact(f"value: {text} (end)", policy())
    assert f"[masked: {label}]" in masked and masked.endswith(" (end)"), masked
    assert masked.startswith("value: ") or label == "AWS secret key"
    assert text[-10:] not in masked


def test_a_url_keeps_its_user_and_host_not_its_password() -> None:
    url = "postgresql://analyst:Sup3r-s3cret@db.internal:5432/sales"
    assert redact(url, policy()) == "postgresql://analyst:[masked: URL password]@db.internal:5432/sales"


def test_a_private_key_cut_in_two_outputs_is_masked_in_both() -> None:
    head, tail = PRIVATE_KEY[:70], PRIVATE_KEY[70:]
    masked = redact([{"text": head}, {"text": tail}], policy())
    assert leaked(masked) == {}, masked
    assert all("[masked: private key]" in o["text"] for o in masked)


def test_what_the_canary_code_prints_is_masked_whole() -> None:
    printed = "\n".join([ENV_TOKEN, ENV_TOKEN[:12], ENV_TOKEN[12:], AWS_KEY_ID,
                         f"auth {GITHUB_TOKEN}", PRIVATE_KEY])  # fmt: skip
    assert leaked(printed)
    masked = redact({"stdout": printed, "code": CANARY_CODE}, policy())
    assert leaked(masked) == {}, masked
    for label in LABELS.values():
        assert label in masked["stdout"]


def test_the_persons_patterns_are_masked_and_a_bad_one_is_one_line() -> None:
    masking = policy(patterns=[r"EMP-\d{6}"])
    assert redact("badge EMP-004211 ok", masking) == "badge [masked: mask_patterns[0]] ok"
    with pytest.raises(ValueError, match=r"^mask_patterns\[1\] is not a regular expression"):
        policy(patterns=["ok", "(unclosed"])
    with pytest.raises(ValueError, match="matches the empty text"):
        policy(patterns=["x*"])


def test_ordinary_data_is_left_alone() -> None:
    rng = random.Random(49)
    ordinary = "\n".join([
        hashlib.sha1(b"x").hexdigest(), hashlib.sha256(b"y").hexdigest(), str(uuid.UUID(int=7)),
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8", "https://example.com:8080/a?b=c#d",
        "mailto:someone@example.com", "ssh git@github.com:org/repo.git", "ASIA PACIFIC 2024",
        "AKIA is a prefix", "KEY=value", "the secret is out", "eyJ alone",
        base64.b64encode(rng.randbytes(30)).decode(),  # 40 base64 characters, no name before
        "token_count = 12345678", "https://user@example.com/path",
    ])  # fmt: skip
    assert redact(ordinary, policy()) is ordinary


def png_base64(size: int = 4000) -> str:
    """A PNG's base64 whose payload holds credential-like runs: it must come back unchanged."""
    rng = random.Random(3)
    raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(size)
    body = base64.b64encode(raw).decode()
    # what base64 itself can spell: an AWS id, a piece of an env token, a key block's body
    cut = len(body) // 2
    return body[:cut] + AWS_KEY_ID + ENV_TOKEN[7:] + PRIVATE_KEY_BODY[:64] + body[cut:]


def test_figures_stay_valid_png_inlined_or_not() -> None:
    png = png_base64()
    bundle = {"image/png": png, "text/plain": "<Figure>"}
    assert redact(bundle, policy()) is bundle
    markdown = f"![fig][f1]\n\n[f1]: data:image/png;base64,{png}\nsaid {GITHUB_TOKEN}"
    masked = redact(markdown, policy(patterns=[r"[A-Z]{3}\d"]))
    assert f"data:image/png;base64,{png}\n" in masked  # untouched, even by a loose pattern
    assert masked.endswith("said [masked: GitHub token]")
    base64.b64decode(masked.split("base64,")[1].split("\n")[0].encode())


def test_a_policy_with_nothing_found_returns_the_value_itself() -> None:
    value = {"outputs": [{"text": "fine " * 1000}], "image/png": AWS_KEY_ID}
    assert redact(value, policy()) is value
    assert redact(value, Masking(shapes=False)) is value
