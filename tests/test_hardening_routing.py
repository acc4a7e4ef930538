"""Issue 13: routing follows the newest parentage of a re-parented child."""

from __future__ import annotations

from dsh_notebook.client.routing import Router, Subscription
from dsh_notebook.protocol import Notification


def ev(session: str) -> Notification:
    return Notification("session.event", {"sessionId": session, "event": {"type": "x"}})


def sub_note(method: str, parent: str, child: str) -> Notification:
    return Notification(method, {"parentSessionId": parent, "childSessionId": child})


def drain(sub: Subscription) -> list[Notification]:
    out = []
    while (item := sub.get_nowait()) is not None:
        assert isinstance(item, Notification)
        out.append(item)
    return out


def test_a_reparented_child_leaves_the_old_tree_and_joins_the_new_one() -> None:
    router = Router()
    old, new = router.subscribe(["old"]), router.subscribe(["new"])
    router.dispatch(sub_note("subagent.started", "old", "child"))
    router.dispatch(sub_note("subagent.started", "child", "grandchild"))
    router.dispatch(sub_note("subagent.started", "new", "child"))
    drain(old), drain(new)

    router.dispatch(ev("child"))
    router.dispatch(ev("grandchild"))
    late = sub_note("subagent.finished", "old", "child")
    router.dispatch(late)

    assert drain(old) == [late]  # the old parent hears only its own late finish
    assert [n.params.get("sessionId") for n in drain(new)] == ["child", "grandchild"]
    assert router.parent_of("child") == "new"
    assert router.descendants("old") == {"old"}
    assert router.descendants("new") == {"new", "child", "grandchild"}


def test_a_subscription_made_after_the_move_sees_the_new_tree() -> None:
    router = Router()
    router.dispatch(sub_note("subagent.started", "old", "child"))
    router.dispatch(sub_note("subagent.started", "new", "child"))
    old, new = router.subscribe(["old"]), router.subscribe(["new"])
    router.dispatch(ev("child"))
    assert drain(old) == [] and len(drain(new)) == 1
    finished = sub_note("subagent.finished", "new", "child")
    router.dispatch(finished)
    assert drain(new) == [finished] and drain(old) == []


def test_a_root_subscribed_directly_keeps_its_own_events_when_moved() -> None:
    router = Router()
    direct = router.subscribe(["child"])
    router.dispatch(sub_note("subagent.started", "old", "child"))
    router.dispatch(sub_note("subagent.started", "new", "child"))
    drain(direct)
    router.dispatch(ev("child"))
    assert len(drain(direct)) == 1
