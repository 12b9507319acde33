"""Maintenance: the job runner and its locks (``runner``), entity resolution (``resolve``,
``merges``), archiving, shadow re-extraction and the nightly run over every group
(``nightly``). The schedules that call these live in the repo's top-level ``jobs/`` folder."""
