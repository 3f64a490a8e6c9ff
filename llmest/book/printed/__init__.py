"""What the chapters print beside the results' own displays: worked answers, comparisons and tables composed
from several plans, in the language shown. Each is to become a result's display or the chapter's prose."""
