"""How the engine makes events and commands fast: each class's `__init__`, its maker
(`make(at, **fields)` without the class call) and its builder (`build(at, fields)`, for
`Tx.emit`), code made from the class's own fields the first time each is asked for. What
they make is what the class makes: the same fields, defaults and default factories, the same
TypeError for a field missing or unknown, and the object stays frozen. `events` and `commands`
use this module; the engine asks `events.maker` and `events.builder`.

The classes are slotted, frozen dataclasses. A frozen class's `__setattr__` refuses, so its
own `__init__` sets each field through `object.__setattr__`, a call per field. Here each
slotted class has a *filler* (`filler`): a class of the same layout whose fields are set
plainly, so the made code fills a new filler's slots as fast as Python sets any attribute,
then makes it an object of the class (`__class__`), frozen from then on."""
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
    """Give an event class an __init__ that fills its slots plainly, through its filler (the
    generated one calls object.__setattr__ per field: the engine builds one or more events per
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


FILLERS: dict[type, type] = {}  # a slotted class -> its filler


def filler(cls: Any) -> type | None:
    """A class of `cls`'s layout (its base, its own slots) that sets its fields plainly
    (`object`'s __setattr__, not the frozen one): an object of it is filled, then made a
    `cls` by setting its `__class__`. None for a class with no slots of its own (its objects
    have a dict: a rule module's class that is not slotted)."""
    made = FILLERS.get(cls)
    if made is None:
        own = cls.__dict__.get("__slots__")
        if own is None or "__dict__" in own:
            return None
        made = FILLERS[cls] = type(f"{cls.__name__}Filler", (cls.__base__,), {
            "__slots__": own, "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
            "__module__": cls.__module__, "__qualname__": f"{cls.__qualname__}Filler"})
    return made


def generate(cls: Any, kind: str, keywords: bool = True) -> Callable | None:
    """An event or command class's __init__, its maker or its builder (`kind`), made from its
    fields (keyword-only after `at` with `keywords`, an event's; else in order, a command's);
    None for a class that keeps the generated __init__ (a __post_init__, a field not in it,
    no slots of its own)."""
    if "__post_init__" in vars(cls) or any(not f.init for f in fields(cls)):
        return None
    fill_class = filler(cls)
    if fill_class is None:  # (no slots: the class's own __init__)
        return None
    names: dict[str, Any] = {"_NOARG": _NOARG, "_new": object.__new__, "_cls": cls, "_filler": fill_class,
                             "_set": object.__setattr__}
    params: list[str] = []
    values: list[tuple[str, str]] = []
    build: list[tuple[str, str, str | None]] = []
    required = 0
    for f in fields(cls):
        if f.default_factory is not MISSING:
            names[f"_make_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_NOARG")
            values.append((f.name, f"_make_{f.name}() if {f.name} is _NOARG else {f.name}"))
            default = f"_make_{f.name}()"
        else:
            if f.default is not MISSING:
                names[f"_default_{f.name}"] = f.default
                params.append(f"{f.name}=_default_{f.name}")
                default = f"_default_{f.name}"
            else:
                params.append(f.name)
                default = ""
            values.append((f.name, f.name))
        if f.name == "at":
            build.append(("at", "at", None))
        elif not default:
            build.append((f.name, f"data[{f.name!r}]", None))
            required += 1
        else:
            build.append((f.name, f"data[{f.name!r}]", default))
    # the slots of a new filler, then it becomes a `cls`
    fill = "".join(f"    self.{name} = {value}\n" for name, value in values) + "    self.__class__ = _cls\n"
    if kind == "__init__":
        star = "*, " if keywords else ""
        source = f"def __init__(self, {star}{', '.join(params)}):\n    _set(self, '__class__', _filler)\n{fill}"
    elif kind == "make":
        rest = [p for p in params if p != "at"]
        signature = ", ".join(["at", "*", *rest] if keywords and rest else ["at", *rest] if rest else ["at"])
        source = f"def make({signature}):\n    self = _new(_filler)\n{fill}    return self\n"
    else:
        lines = []
        for name, value, fallback in build:
            if fallback is None:
                lines.append(f"        self.{name} = {value}")
            else:
                lines.append(f"        if {name!r} in data:\n            self.{name} = {value}\n            n += 1\n"
                             f"        else:\n            self.{name} = {fallback}")
        source = (f"def build(at, data):\n    self = _new(_filler)\n    n = {required}\n    try:\n"
                  + "\n".join(lines) + "\n    except KeyError:\n        n = -1\n"
                  "    if n == len(data):\n        self.__class__ = _cls\n        return self\n"
                  "    return _cls(at=at, **data)  # (a field missing or unknown: the class's own TypeError)\n")
    namespace: dict = {}
    exec(source, names, namespace)  # noqa: S102  (code made here, from the class's own fields)
    return namespace[kind]
