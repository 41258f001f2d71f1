"""The clauses of the wire contract, judged on what the agent under test sent (`Conformance.exchanges`).

A clause is PASSED or FAILED with its evidence: the lines of the conversation it was judged on
(what the scripted server sent, what came back). A clause whose delivery the agent never
polled for is FAILED ("not reached"). The check sees the wire only: that an agent injected no
input is judged from what it said (`/start` sent or not, `executed` in its result).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass, field

from rpa_mcp.agent_check.server import Conformance, Dispatched, Exchange
from rpa_mcp.replay.wire import PROTOCOL_VERSION

IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


@dataclass
class Clause:
    name: str
    title: str
    passed: bool = True
    evidence: list[str] = field(default_factory=list)

    def fail(self, why: str) -> None:
        self.passed = False
        self.evidence.append(f"FAILED: {why}")


class Judge:
    """Reads the run: the messages of one attempt, the delivery of one clause."""

    def __init__(self, run: Conformance) -> None:
        self.run = run

    def delivery(self, clause: str) -> Dispatched | None:
        return next((d for d in self.run.dispatched if d.delivery.clause == clause), None)

    def messages(self, attempt: Dispatched, kinds: tuple[str, ...], *, after: int = 0) -> list[Exchange]:
        k = f"{attempt.action['action_id']}/{attempt.action['attempt_id']}"
        return [e for e in self.run.exchanges if e.kind in kinds and e.key == k and e.seq > after]

    def handled(self, attempt: Dispatched, kinds: tuple[str, ...]) -> list[Exchange]:
        """The messages about `attempt` from its delivery until the agent polled for the next step."""
        later = (
            e.seq
            for e in self.run.exchanges
            if e.kind == "poll" and e.delivery is not None and e.seq > attempt.poll_seq
        )
        until = next(later, 1 << 62)
        return [e for e in self.messages(attempt, kinds, after=attempt.poll_seq) if e.seq < until]

    def posts(self) -> list[Exchange]:
        return [e for e in self.run.exchanges if e.kind not in ("poll", "other")]


def _reached(clause: Clause, attempt: Dispatched | None) -> Dispatched | None:
    if attempt is None:
        clause.fail("not reached: the agent did not poll for this step")
    else:
        params = f" {attempt.action['params']}" if attempt.action["params"] else ""
        clause.evidence.append(
            f"sent: {attempt.action['attempt_id']} wait{params} "
            f"not_after=server_now{attempt.action['not_after'] - attempt.action['server_now']:+.0f}s "
            f"(server clock {attempt.delivery.clock_offset_s:+.0f}s from real time)"
        )
    return attempt


def _show(clause: Clause, exchanges: list[Exchange]) -> None:
    clause.evidence += [e.line() for e in exchanges]


def _not_executed(clause: Clause, j: Judge, attempt: Dispatched, *, expired: bool = False) -> None:
    """No start for this attempt (or one refused), and a result saying executed=false."""
    msgs = j.handled(attempt, ("receipt", "start", "heartbeat", "result"))
    _show(clause, msgs)
    results = [e for e in msgs if e.kind == "result" and e.status == 200]
    if expired and any(e.kind == "start" for e in msgs):
        clause.fail("a /start was sent for an action past its not_after (server clock): it was about to execute")
    if any(e.kind == "heartbeat" for e in msgs):
        clause.fail("heartbeats were sent: the action was being executed")
    if not results:
        clause.fail("no result was reported for this attempt")
    elif any(e.body.get("executed", True) for e in results):
        clause.fail("the result says executed=true")
    elif expired:
        error = str(results[0].body.get("error") or "")
        if results[0].body.get("success") is not False or not error.upper().startswith("EXPIRED"):
            clause.fail(f"an expired action is reported success=false, error='EXPIRED: ...' (got {error!r})")


def _executed(clause: Clause, j: Judge, attempt: Dispatched) -> list[Exchange]:
    """receipt, then start, then the result (executed=true); heartbeats only between start and result."""
    msgs = j.handled(attempt, ("receipt", "start", "heartbeat", "result"))
    _show(clause, msgs)
    order = [e.kind for e in msgs if e.kind != "heartbeat"]
    if order[:3] != ["receipt", "start", "result"]:
        clause.fail(f"expected receipt, start, result in that order; got {', '.join(order) or 'nothing'}")
        return msgs
    first_result = next(e for e in msgs if e.kind == "result")
    if not first_result.body.get("executed", True) or first_result.body.get("success") is not True:
        clause.fail("the result does not say executed=true, success=true for a wait")
    if [e for e in msgs if e.kind == "start"][1:]:
        clause.fail("more than one /start for one attempt")
    start = next(e.seq for e in msgs if e.kind == "start")
    if any(e.kind == "heartbeat" and not start < e.seq < first_result.seq for e in msgs):
        clause.fail("a heartbeat outside the execution (before the start or after the result)")
    return msgs


# --- the clauses -----------------------------------------------------------------------------
def bearer_token(c: Clause, j: Judge) -> None:
    bad = [e for e in j.run.exchanges if not e.bearer_ok]
    c.evidence.append(f"{len(j.run.exchanges)} requests, {len(bad)} without the bearer token")
    if not j.run.exchanges:
        c.fail("no request came")
    if bad:
        c.fail(f"first one: {bad[0].line()}")


def protocol_header(c: Clause, j: Judge) -> None:
    seen = sorted({str(e.protocol) for e in j.run.exchanges})
    c.evidence.append(f"X-Replay-Protocol-Version values seen: {', '.join(seen) or 'none'}")
    if not j.run.exchanges or seen != [str(PROTOCOL_VERSION)]:
        c.fail(
            f"every request must carry X-Replay-Protocol-Version: {PROTOCOL_VERSION} "
            "(a v1 agent's lost report always pauses the replay)"
        )


def bodies_valid(c: Clause, j: Judge) -> None:
    bad = [e for e in j.run.exchanges if e.status == 422 or e.kind == "other"]
    c.evidence.append(f"{len(j.posts())} messages posted")
    for e in bad[:3]:
        if e.kind == "other":
            c.fail(f"{e.path}: not an endpoint of the replay wire (the check serves only /api/v1/replay/*)")
        else:
            c.fail(f"{e.path}: {e.error}")


def long_poll(c: Clause, j: Judge) -> None:
    polls = [e for e in j.run.exchanges if e.kind == "poll"]
    c.evidence.append(f"{len(polls)} polls; machine_id {j.run.machine_id!r}")
    waits = [e.body.get("wait") for e in polls]
    c.evidence.append(f"wait values: {', '.join(sorted({str(w) for w in waits}))}")
    if not any(e.delivery == 1 for e in polls):
        c.fail("after a 204 No Content the agent did not poll again")
    if any(e.status == 422 for e in polls):
        c.fail("a poll without machine_id or with wait outside 0..60")


def ack_order(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("ack-order"))
    if attempt is not None:
        _executed(c, j, attempt)


def result_evidence(c: Clause, j: Judge) -> None:
    executed = [
        d for d in j.run.dispatched if d.delivery.clause in ("ack-order", "resume", "skew-corrected", "heartbeat")
    ]
    firsts = [r[0] for d in executed if (r := j.messages(d, ("result",))) and r[0].body.get("executed", True)]
    if not firsts:
        c.fail("no executed action was reported")
    for e in firsts:
        missing = [f for f in ("screenshot_before", "screenshot_after") if not _is_image(e.body.get(f))]
        c.evidence.append(
            f"{e.body.get('attempt_id')}: " + ("both screenshots" if not missing else f"missing {missing}")
        )
        if missing:
            c.fail(f"{e.body.get('attempt_id')} has no PNG/JPEG {', '.join(missing)}: never a verified success")


def duplicate_delivery(c: Clause, j: Judge) -> None:
    first, again = j.delivery("ack-order"), _reached(c, j.delivery("duplicate-delivery"))
    if first is None or again is None:
        return
    msgs = j.messages(again, ("receipt", "start", "heartbeat", "result"), after=again.poll_seq)
    _show(c, msgs)
    if any(e.kind in ("receipt", "start", "heartbeat") for e in msgs):
        c.fail("the same attempt delivered twice was handled again (receipt/start sent): executed twice")
    results = [e for e in msgs if e.kind == "result"]
    original = next((e for e in j.messages(first, ("result",)) if e.seq < again.poll_seq), None)
    if not results:
        c.fail("the cached result was not re-sent")
    elif original is not None and any(
        e.body.get(f) != original.body.get(f) for e in results for f in ("executed", "success")
    ):
        c.fail("the re-sent result differs from the first (executed/success)")


def result_retried(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("result-retried"))
    if attempt is None:
        return
    msgs = j.messages(attempt, ("receipt", "start", "result"))
    _show(c, msgs)
    if len([e for e in msgs if e.kind == "result"]) < 2:
        c.fail("a result answered 503 was not sent again")
    if len([e for e in msgs if e.kind == "start"]) > 1:
        c.fail("the attempt was started again")


def resend_after_start(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("resend-after-start"))
    if attempt is not None:
        c.evidence.append("(a new attempt of an action this agent already executed, idempotent=false)")
        _not_executed(c, j, attempt)
        if j.messages(attempt, ("start",)):
            c.fail("a /start was sent: a click in a patient record would have happened twice")


def person_retry(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("person-retry"))
    if attempt is not None:
        c.evidence.append(f"(a person answered retry after seeing {attempt.action['retry_of']}; nothing ran since)")
        _executed(c, j, attempt)


def start_refused(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("start-refused"))
    if attempt is not None:
        c.evidence.append("(/start answered status=late, proceed=false, replay_state=paused)")
        _not_executed(c, j, attempt)


def pause(c: Clause, j: Judge) -> None:
    polls = [e for e in j.run.exchanges if e.kind == "poll" and e.delivery is not None]
    pauses = [e for e in polls if j.run.script[e.delivery or 0].clause == "pause"]
    c.evidence.append(f"{len(pauses)} polls answered 204 during the pause")
    if len(pauses) < 2:
        c.fail("the agent stopped polling during the pause")
        return
    during = [e for e in j.posts() if pauses[0].seq < e.seq < pauses[-1].seq]
    _show(c, during)
    if any(e.kind in ("receipt", "start", "heartbeat") for e in during):
        c.fail("messages about an action while nothing was dispatched")


def resume(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("resume"))
    if attempt is not None:
        c.evidence.append("(a new attempt of an action whose first attempt was never started)")
        _executed(c, j, attempt)


def start_unanswered(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("start-unanswered"))
    if attempt is None:
        return
    c.evidence.append("(first /start answered 503, the next ones duplicate, proceed=false)")
    starts = j.messages(attempt, ("start",))
    if len(starts) < 2:
        c.fail("a /start without an answer was not retried")
    _not_executed(c, j, attempt)


def not_after(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("not-after"))
    if attempt is not None:
        _not_executed(c, j, attempt, expired=True)


def not_after_server_clock(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("not-after-server-clock"))
    if attempt is not None:
        c.evidence.append("(expired on the server's clock, 1 h in the future on the agent's)")
        _not_executed(c, j, attempt, expired=True)


def skew_corrected(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("skew-corrected"))
    if attempt is not None:
        c.evidence.append("(live on the server's clock, 1 h past on the agent's)")
        _executed(c, j, attempt)


def heartbeat(c: Clause, j: Judge) -> None:
    attempt = _reached(c, j.delivery("heartbeat"))
    if attempt is None:
        return
    msgs = _executed(c, j, attempt)
    start = next((e.seq for e in msgs if e.kind == "start"), None)
    end = next((e.seq for e in msgs if e.kind == "result"), None)
    beats = [e for e in msgs if e.kind == "heartbeat" and start is not None and start < e.seq < (end or 1 << 30)]
    if not beats:
        c.fail("no heartbeat between start and result of a long action")


def echo_ids(c: Clause, j: Judge) -> None:
    known = {(d.action["replay_id"], d.action["action_id"], d.action["attempt_id"]) for d in j.run.dispatched}
    posts = [e for e in j.posts() if e.status != 422]
    c.evidence.append(f"{len(posts)} messages checked")
    for e in posts:
        ref = (e.body.get("replay_id"), e.body.get("action_id"), e.body.get("attempt_id"))
        if ref not in known:
            c.fail(f"a message about an attempt never dispatched: {e.line()}")
        if e.body.get("machine_id") not in (None, j.run.machine_id):
            c.fail(f"machine_id {e.body.get('machine_id')!r} is not the polling machine: {e.line()}")


def stop_resending(c: Clause, j: Judge) -> None:
    acked: dict[str, int] = {}  # attempt -> seq of the last 2xx answer to its result
    delivered: dict[str, int] = {}  # attempt -> seq of the last poll that delivered it
    extra = 0
    for e in j.run.exchanges:
        if e.kind == "poll" and e.status == 200 and e.answer:
            delivered[f"{e.answer['action_id']}/{e.answer['attempt_id']}"] = e.seq
        if e.kind != "result" or e.key is None:
            continue
        if e.key in acked and acked[e.key] > delivered.get(e.key, 0):
            extra += 1
            c.fail(f"re-sent after an acknowledgement: {e.line()}")
        if e.status == 200:
            acked[e.key] = e.seq
    c.evidence.append(f"{extra} results re-sent after a 2xx ReportAck")


CLAUSES: tuple[tuple[str, str, Callable[[Clause, Judge], None]], ...] = (
    ("bearer-token", "every request carries Authorization: Bearer <token>", bearer_token),
    ("protocol-header", "every request carries X-Replay-Protocol-Version: 2", protocol_header),
    ("bodies-valid", "every message matches its schema (unknown fields refused)", bodies_valid),
    ("long-poll", "GET /next with machine_id and wait 0..60; polls again after 204", long_poll),
    ("ack-order", "receipt, then start, then the result of an executed action", ack_order),
    ("result-evidence", "executed results carry screenshot_before and screenshot_after", result_evidence),
    (
        "duplicate-delivery",
        "the same attempt delivered twice: executed once, cached result re-sent",
        duplicate_delivery,
    ),
    ("result-retried", "a result answered 503 is sent again, the action not re-run", result_retried),
    ("resend-after-start", "a new attempt of an executed action is not executed", resend_after_start),
    ("person-retry", "a new attempt a person asked for (retry_of) is executed", person_retry),
    ("start-refused", "start answered proceed=false (paused): not executed, reported executed=false", start_refused),
    ("pause", "while nothing is dispatched the agent keeps polling and does nothing", pause),
    ("resume", "a new attempt of a never-started action is executed", resume),
    ("start-unanswered", "an unanswered start is retried, then obeyed (duplicate, proceed=false)", start_unanswered),
    ("not-after", "an action past not_after is not executed (EXPIRED, executed=false)", not_after),
    (
        "not-after-server-clock",
        "not_after is judged on the server's clock (agent clock 1 h behind)",
        not_after_server_clock,
    ),
    ("skew-corrected", "a live action is executed though the agent's clock is 1 h ahead", skew_corrected),
    ("heartbeat", "a long action sends heartbeats between start and result", heartbeat),
    ("echo-ids", "every message echoes a dispatched replay/action/attempt and the polling machine", echo_ids),
    ("stop-resending", "a result acknowledged by any 2xx ReportAck is not sent again", stop_resending),
)


def judge(run: Conformance) -> list[Clause]:
    """Every clause of the run, in the order of the report."""
    j = Judge(run)
    out = []
    for name, title, check in CLAUSES:
        clause = Clause(name, title)
        check(clause, j)
        out.append(clause)
    return out


def _is_image(value: object) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        head = base64.b64decode(value[:64] + "=" * (-len(value[:64]) % 4), validate=False)
    except (binascii.Error, ValueError):
        return False
    return head.startswith(IMAGE_MAGIC)


__all__ = ["CLAUSES", "Clause", "judge"]
