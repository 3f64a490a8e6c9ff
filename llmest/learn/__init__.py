"""The learning parts: exercises, drills, flashcards, worksheets, grading (and the sealed copy a course
grades with), the graded mode and the learner's progress."""
