"""The runner: the library the CLI is thin over.

:func:`~trailblaze.runner.project.load_project` assembles a project (plugins, their options,
``trailblaze.yaml``); :func:`~trailblaze.runner.run.run_trails`,
:func:`~trailblaze.runner.record.record_trails` and
:func:`~trailblaze.runner.validate.validate` are ``run``, ``record`` and ``validate``. The types
plugins receive (``Run``, ``Session``, the results) are not here but in :mod:`trailblaze.api.session`
and :mod:`trailblaze.api.results`, so a plugin never imports the runner. Nothing is imported here,
so importing a submodule stays as cheap as it is.
"""
