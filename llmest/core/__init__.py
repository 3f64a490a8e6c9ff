"""The foundation every layer uses: units (parse and format quantities), checks and InputError, the language
shown (i18n), the limits of plausibility, and a keyed registry."""
