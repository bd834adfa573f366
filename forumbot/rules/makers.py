"""How the engine makes events fast: each event class's `__init__`, its maker (`make(at,
**fields)` without the class call) and its builder (`build(at, fields)`, for `Tx.emit`), code
made from the class's own fields the first time each is asked for. What they make is what the
class makes: the same fields, defaults and default factories, the same TypeError for a field
missing or unknown, and the event stays frozen. `events` uses this module; the engine asks
`events.maker` and `events.builder`."""
from __future__ import annotations

from dataclasses import MISSING, fields
from datetime import datetime
from typing import Any, Callable, TypeVar

_T = TypeVar("_T")

_NOARG: Any = object()  # a default_factory field's argument, not given

# How `Tx.emit` builds an event of each class: fn(at, fields) -> the event (`fields` a dict
# of its keyword fields, as emit takes them); the same checks as the class's __init__. Each
# class's is made the first time it is asked for (`builder`): none costs the start-up.
BUILD: dict[type, Callable[[datetime, dict], Any]] = {}
# Each event class's maker: make(at, **fields), the event cls(at=at, **fields) without the
# class call, for the engine's hot paths (`tx.add(maker(VoteCast)(tx.at, player=...))`);
# made when asked for (`maker`).
MAKE: dict[type, Callable[..., Any]] = {}


def quick_init(cls: Any) -> None:
    """Give an event class an __init__ that sets the instance's dict at once (the generated
    one calls object.__setattr__ per field: the engine builds one or more events per
    command). Same keyword fields, defaults and default factories, the same TypeError for a
    field missing or unknown; the class stays frozen (its __setattr__ still refuses)."""
    init = generate(cls, "__init__")
    if init is not None:
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = init


def maker(cls: type[_T]) -> Callable[..., _T]:
    """The maker of event class `cls`: make(at, **fields) is cls(at=at, **fields), without
    the class call (MAKE keeps it)."""
    made: Any = MAKE.get(cls)
    if made is None:
        klass: Any = cls
        made = MAKE[cls] = generate(cls, "make") or (lambda at, **data: klass(at=at, **data))
    return made


def generate(cls: Any, kind: str) -> Callable | None:
    """An event class's __init__, its maker or its builder (`kind`), made from its fields;
    None for a class that keeps the generated __init__ (a __post_init__, a field not in it)."""
    if "__post_init__" in vars(cls) or any(not f.init for f in fields(cls)):
        return None
    holder = next(k for k in cls.__mro__ if "__dict__" in k.__dict__)  # (the class that gives the dict)
    names = {"_NOARG": _NOARG, "_new": object.__new__, "_cls": cls, "_setdict": holder.__dict__["__dict__"].__set__}
    params, items, build, required = [], [], [], 0
    for f in fields(cls):
        if f.default_factory is not MISSING:
            names[f"_make_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_NOARG")
            items.append(f"{f.name!r}: _make_{f.name}() if {f.name} is _NOARG else {f.name}")
            default = f"_make_{f.name}()"
        else:
            if f.default is not MISSING:
                names[f"_default_{f.name}"] = f.default
                params.append(f"{f.name}=_default_{f.name}")
                default = f"_default_{f.name}"
            else:
                params.append(f.name)
                default = ""
            items.append(f"{f.name!r}: {f.name}")
        if f.name == "at":
            build.append("    d['at'] = at")
        elif not default:
            build.append(f"    d[{f.name!r}] = data[{f.name!r}]")
            required += 1
        else:
            build.append(f"    if {f.name!r} in data:\n        d[{f.name!r}] = data[{f.name!r}]\n        n += 1\n"
                         f"    else:\n        d[{f.name!r}] = {default}")
    # The instance's dict is set whole (a dict of its own, not the class's shared keys: its
    # fields' reads specialise), through the class's __dict__ descriptor (it stays frozen).
    fill = f"    _setdict(self, {{{', '.join(items)}}})"
    if kind == "__init__":
        source = f"def __init__(self, *, {', '.join(params)}):\n{fill}\n"
    elif kind == "make":
        signature = ", ".join(["at", "*", *(p for p in params if p != "at")] if len(params) > 1 else ["at"])
        source = f"def make({signature}):\n    self = _new(_cls)\n{fill}\n    return self\n"
    else:
        source = (f"def build(at, data):\n    d = {{}}\n    n = {required}\n    try:\n"
                  + "\n".join("    " + line.replace("\n", "\n    ") for line in build)
                  + "\n    except KeyError:\n        n = -1\n"
                  "    if n != len(data):  # (a field missing or unknown: the class's own TypeError)\n"
                  "        return _cls(at=at, **data)\n    self = _new(_cls)\n    _setdict(self, d)\n    return self\n")
    namespace: dict = {}
    exec(source, names, namespace)  # noqa: S102  (code made here, from the class's own fields)
    return namespace[kind]
