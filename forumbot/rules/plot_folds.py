"""The Plot Cards' state, `state.extra["plot"]`, and how their events change it (copy on
write: a fold changes the data through `own`, see GameState.own_extra)."""
from __future__ import annotations

from . import events as ev
from .plot_deck import BY_KEY
from .state import GameState, open_phase, register_copy, register_fold

WINDOW = "card_window"  # optional cards: play or PASS
HAND_OUT = "hand_out"  # the leader gives the drawn cards
CHOICE = "plot_choice"  # an immediate card's holder chooses


def plot(state: GameState) -> dict:
    return state.extra["plot"]


def card_name(key: str) -> str:
    return BY_KEY[key].name


def kind_of(state: GameState, key: str) -> str:
    """avalon-2020 keeps Take Responsibility to play when its holder likes."""
    if key == "take-responsibility" and state.config.preset == "avalon-2020":
        return "one-use"
    return BY_KEY[key].kind


# --- how the events change the state ----------------------------------------------------
# (copy on write: a fold changes the plug-in's data through `own`, see GameState.own_extra)


def own(state: GameState) -> dict:
    """The plug-in's data, this state's own, to change (in a fold), or to hold on to while
    events change it (in a step given the transaction: `tx.state`)."""
    return state.own_extra("plot")


@register_copy("plot")
def _copy(p: dict) -> dict:
    """A copy of the plug-in's data: every container a fold changes in place is copied."""
    q = p.copy()
    q["hands"] = {n: h[:] for n, h in p["hands"].items()}
    for key in ("discard", "opinion", "queue", "drawn", "spotlight", "given_to", "picked", "declared"):
        if key in q:
            q[key] = q[key][:]
    if q.get("round") is not None:
        q["round"] = q["round"].copy()
    if q.get("window") is not None:
        q["window"] = {**q["window"], "plays": q["window"]["plays"][:]}
    return q


@register_fold(ev.PLOT_SHUFFLED)
def _shuffled(state, e):
    if "plot" not in state.extra:
        state.put_extra("plot", {"hands": {}, "discard": [], "opinion": [], "queue": [], "drawn": [],
                                 "spotlight": [], "strong_at": -1, "shuffles": 0, "window": None})
    p = own(state)
    p["deck"] = list(e.data["deck"])
    p["discard"] = []
    p["shuffles"] += 1


@register_fold(ev.PLOT_ROUND)
def _round(state, e):
    p = own(state)
    p["round"] = {"mission": e.data["mission"], "leader": e.data["leader"]}
    p["given_to"], p["drawn"], p["queue"], p["spotlight"] = [], [], [], []


@register_fold(ev.PLOT_WINDOW)
def _window(state, e):
    p = own(state)
    p["window"] = {"kind": e.data["window"], "plays": []}
    if e.data["window"] == "after_result":
        p["picked"] = []
        p["declared"] = []
    open_phase(state, WINDOW, e, e.data["holders"])


@register_fold(ev.PLOT_PASSED)
def _passed(state, e):
    state.own("actors").remove(e.data["holder"])


@register_fold(ev.PLOT_PLAYED)
def _played(state, e):
    p = own(state)
    d = e.data
    p["hands"][d["holder"]].remove(d["card"])
    p["discard"].append(d["card"])
    if d["holder"] in state.actors:
        state.own("actors").remove(d["holder"])
    if p["window"] is not None:
        p["window"]["plays"].append([d["holder"], d["card"], d.get("target")])
    if d["card"] == "strong-leader":
        p["round"]["leader"] = d["holder"]
        p["strong_at"] = len(state.vote_history)
    if d["card"] == "chicago-proxy":
        state.own("proxied")[d["target"]] = d["holder"]
        state.own("votes").pop(d["target"], None)
        state.own("vote_via").pop(d["target"], None)


@register_fold(ev.PLOT_WINDOW_CLOSED)
def _window_closed(state, e):
    p = own(state)
    if p["window"]["kind"] == "approved":  # In the Spotlight targets, for this mission's result
        p["spotlight"] = [x[2] for x in p["window"]["plays"] if x[1] == "spotlight"]
    p["window"] = None
    state.put("actors", [])


@register_fold(ev.PLOT_DRAWN)
def _drawn(state, e):
    p = own(state)
    n = len(e.data["cards"])
    p["deck"] = p["deck"][n:]
    p["drawn"] = list(e.data["cards"])
    open_phase(state, HAND_OUT, e, [e.data["leader"]])


@register_fold(ev.PLOT_GIVEN)
def _given(state, e):
    p = own(state)
    d = e.data
    p["drawn"].remove(d["card"])
    if not d.get("own"):
        p["given_to"].append(d["to"])
    if kind_of(state, d["card"]) == "immediate":
        p["queue"].append([d["card"], d["to"]])
    else:
        p["hands"].setdefault(d["to"], []).append(d["card"])
        if d["card"] == "opinion-maker":
            p["opinion"].append(d["to"])


@register_fold(ev.PLOT_DISCARDED)
def _discarded(state, e):
    p = own(state)
    if e.data["card"] in p["drawn"]:
        p["drawn"].remove(e.data["card"])
    p["discard"].append(e.data["card"])


@register_fold(ev.PLOT_CHOICE_OPENED)
def _choice_opened(state, e):
    p = own(state)
    p["current"] = p["queue"].pop(0)
    open_phase(state, CHOICE, e, [e.data["holder"]])


@register_fold(ev.PLOT_CHOICE_SKIPPED)
def _choice_skipped(state, e):
    p = own(state)
    if p["queue"] and p["queue"][0] == [e.data["card"], e.data["holder"]]:
        p["queue"].pop(0)
    p["current"] = None
    p["discard"].append(e.data["card"])


@register_fold(ev.PLOT_REVEAL)
def _reveal(state, e):
    p = own(state)
    if e.data["card"] == "close-eye":
        p["hands"][e.data["viewer"]].remove("close-eye")
        p["picked"].append(e.data["subject"])
        state.own("actors").remove(e.data["viewer"])
    else:
        p["current"] = None
    p["discard"].append(e.data["card"])


@register_fold(ev.PLOT_DECLARED)
def _declared(state, e):
    own(state).setdefault("declared", []).append(e.data["holder"])


@register_fold(ev.PLOT_TAKEN)
def _taken(state, e):
    p = own(state)
    d = e.data
    if d.get("from_hand"):  # avalon-2020: a kept Take Responsibility, played when liked
        p["hands"][d["by"]].remove("take-responsibility")
        p["hands"][d["source"]].remove(d["card"])
        p["hands"][d["by"]].append(d["card"])
        p["discard"].append("take-responsibility")
        return
    p["hands"][d["source"]].remove(d["card"])
    p["hands"].setdefault(d["by"], []).append(d["card"])
    if d["card"] == "opinion-maker":
        p["opinion"].remove(d["source"])
        p["opinion"].append(d["by"])
    p["current"] = None
    p["discard"].append("take-responsibility")


@register_fold(ev.PLOT_SPOTLIGHT)
def _spotlight(state, e):
    pass


@register_fold(ev.TEAM_VETOED)
def _vetoed(state, e):
    state.rejections += 1
    own(state)["spotlight"] = []


@register_fold(ev.PLOT_ORDER_SEEN)
def _order_seen(state, e):
    pass
