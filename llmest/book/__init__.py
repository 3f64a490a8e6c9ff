"""The tools that build the book (``authoring``, ``edition``, ``export``, ``course``), the material's figures
(``material``) and what the chapters print (``printed``)."""
