"""Events -> posts and PMs. Pure: the same events give the same words."""
from .posts import Message, render_events, render_refusal

__all__ = ["Message", "render_events", "render_refusal"]
