"""The host's config text -> YAML data, or the reasons it is refused. Bounded before
anything is built: at most 10,000 characters and 20 levels deep; no anchors, aliases, tags
or merge keys (a 700-character alias bomb would otherwise build gigabytes); no key given
twice; no number longer than 40 characters."""
from __future__ import annotations

from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, NodeEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .config_values import key_name, shown

MAX_CONFIG_CHARS = 10_000
MAX_DEPTH = 20
MAX_NUMBER_CHARS = 40
_MERGE = "tag:yaml.org,2002:merge"


class Huge(float):
    """A number too long to be one (over 40 characters): no key takes a float where a whole
    number goes, and its problem shows only its first digits."""

    text: str

    def __new__(cls, text: str) -> "Huge":
        number = super().__new__(cls, float("-inf") if text.lstrip().startswith("-") else float("inf"))
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


class StrictLoader(yaml.SafeLoader):
    """SafeLoader whose whole numbers stay small (int() of 5,000 digits is refused by Python,
    and 1:1:1:... in base 60 grows without end)."""

    def construct_yaml_int(self, node: Node) -> Any:
        if len(str(node.value)) > MAX_NUMBER_CHARS:
            return Huge(str(node.value))
        return super().construct_yaml_int(node)  # type: ignore[arg-type]


    def construct_yaml_timestamp(self, node: Node) -> Any:
        """A date that is no date (2001-13-45) is the text as written, not a ValueError."""
        try:
            return super().construct_yaml_timestamp(node)  # type: ignore[arg-type]
        except ValueError:
            return str(node.value)


StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)
StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", StrictLoader.construct_yaml_timestamp)

Refusal = tuple[str, str]  # (key, message), as gameconfig.Problem takes them


def too_long(text: str) -> Refusal | None:
    if len(text) <= MAX_CONFIG_CHARS:
        return None
    return ("(config)", f"is {len(text):,} characters long; a config may have at most {MAX_CONFIG_CHARS:,}")


def load(text: str) -> tuple[Any, list[Refusal]]:
    """The YAML document in `text`, or why it is refused. Raises yaml.YAMLError if it is not
    YAML at all."""
    if refused := too_long(text):
        return None, [refused]
    if refused := _refused_events(text):
        return None, [refused]
    loader = StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        _names_as_written(node, in_names=False)  # (before anything is built: the loader keeps what it built)
        problems = _key_problems(loader, node, "")
        if problems:
            return None, problems
        return loader.construct_document(node), []
    finally:
        loader.dispose()


def is_mapping(text: str) -> bool:
    """Whether `text` is a config's YAML mapping (and one the config may be)."""
    try:
        doc, refused = load(text)
    except yaml.YAMLError:
        return False
    return not refused and isinstance(doc, dict)


def _refused_events(text: str) -> Refusal | None:
    """Anchors, aliases, tags and deep nesting, found in the parser's events: nothing is
    built yet."""
    depth = 0
    for event in yaml.parse(text, Loader=StrictLoader):
        line = event.start_mark.line + 1 if event.start_mark else 0
        if isinstance(event, AliasEvent):
            return ("(yaml)", f"line {line}: aliases (`*{key_name(event.anchor, 20)}`) are not allowed in a "
                              "config; write each value out")
        if isinstance(event, NodeEvent) and event.anchor is not None:
            return ("(yaml)", f"line {line}: anchors (`&{key_name(event.anchor, 20)}`) are not allowed in a "
                              "config; write each value out")
        if (tag := getattr(event, "tag", None)) is not None:
            return ("(yaml)", f"line {line}: tags like {shown(tag, 20)} are not allowed in a config")
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                return ("(yaml)", f"line {line}: lists and keys nested more than {MAX_DEPTH} deep")
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
    return None


def _key_problems(loader: StrictLoader, node: Node, path: str) -> list[Refusal]:
    """Keys given twice (the second would silently replace the first), merge keys, and keys
    that are lists or mappings; `path` names the section (`deadlines.team_vote`)."""
    problems: list[Refusal] = []
    if isinstance(node, SequenceNode):
        for item in node.value:
            problems += _key_problems(loader, item, path)
    if not isinstance(node, MappingNode):
        return problems
    seen: set = set()  # the keys as the mapping holds them (1 and 01 are one key)
    for key, value in node.value:
        where = key_name(path) if path else "(yaml)"
        if key.tag == _MERGE:
            problems.append((where, "merge keys (`<<`) are not allowed in a config; write each key out"))
            continue
        if not isinstance(key, ScalarNode):
            problems.append((where, f"line {key.start_mark.line + 1}: a key must be a word, not a list or keys"))
            continue
        full = f"{path}.{key.value}" if path else str(key.value)
        built = loader.construct_object(key)
        if built in seen:
            problems.append((key_name(full), "is given twice; give each key once"))
        seen.add(built)
        problems += _key_problems(loader, value, full)
    return problems


_STR = "tag:yaml.org,2002:str"
NAME_MAPPINGS = {"aliases"}  # top-level keys whose keys and values are names


def _names_as_written(node: Node, in_names: bool, top: bool = True) -> None:
    """Every plain word in a list (players, cohosts, roles, ...) or in `aliases:` is the text as
    written: YAML 1.1 would read the username `012` as 10, `0x1F` as 31, `yes` as True and `null`
    as nothing, and seat another user (or none) in that player's place."""
    if isinstance(node, ScalarNode):
        if in_names and node.style is None:
            node.tag = _STR
        return
    if isinstance(node, SequenceNode):
        for item in node.value:
            _names_as_written(item, True, top=False)
        return
    if isinstance(node, MappingNode):
        for key, value in node.value:
            names = in_names or (top and isinstance(key, ScalarNode) and key.value in NAME_MAPPINGS)
            if names and not top:
                _names_as_written(key, True, top=False)
            _names_as_written(value, names, top=False)
