"""Reports of a run beyond the reporters' own files: the HTML page (:mod:`.html`) and the server
that shows it (:mod:`.server`), and the merge of CI shards' results (:mod:`.inputs`,
:mod:`.merge`, checked by :mod:`.resultsdoc`), whose result the reporters write as a run's."""
