"""Progress between sessions: a spaced-repetition schedule (FSRS) for the flashcards and drill templates, kept
with the reviews, timed-session scores and exercise attempts in a small SQLite file (``Store``), and what they
say: the cards due, accuracy by topic, the topics to review next and a study plan to an interview date.

The file is ``$LLMEST_PROGRESS`` or progress.sqlite3 in the user's data folder unless a path is given; nothing
writes to it unless a store is passed (``flashcard_deck(store=...)``, ``timed_session(store=...)``,
``llmest review``)."""

from .plan import (MINUTES, PlanDay, Progress, StudyPlan, TopicStanding, accuracy_by_topic, next_topics, plan_inputs,
                   progress, store_summary, study_plan)
from .schedule import (Due, Item, catalog, due, due_flashcards, flashcard_id, interval_text, next_review_text, rating,
                       review_drill, review_flashcard, review_log, scheduler)
from .store import ENV_VAR, SCHEMA_VERSION, Store, default_path

__all__ = ["ENV_VAR", "MINUTES", "SCHEMA_VERSION", "Due", "Item", "PlanDay", "Progress", "Store",
           "StudyPlan", "TopicStanding", "accuracy_by_topic", "catalog", "default_path", "due", "due_flashcards",
           "flashcard_id", "interval_text", "next_review_text", "next_topics", "plan_inputs", "progress", "rating",
           "review_drill", "review_flashcard", "review_log", "scheduler",
           "store_summary", "study_plan"]
