"""Events -> posts and PMs. Pure: the same events give the same words."""
from .posts import render_events, render_refusal
from .words import Message

__all__ = ["Message", "render_events", "render_refusal"]
