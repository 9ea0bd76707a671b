"""Lessons (``/learn``): the courses with a player's stars, and a learner's moves checked by
the engine against each stage's goal (brandubh.lessons); an account's stars in PostgreSQL,
a guest's in Redis until a sign-up adopts the guest's id."""

from brandubh.hub.lessons.service import Learn, Lessons, MoveAnswer

__all__ = ["Learn", "Lessons", "MoveAnswer"]
