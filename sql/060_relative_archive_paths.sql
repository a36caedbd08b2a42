-- The ledger records where each file version is relative to the archive root
-- (<exchange>/<symbol>/<name>), never as an absolute or working-folder-relative path. Older rows are
-- rewritten by their last three parts when those are the row's own archive name (the plain name, or
-- the pending name of its sha256); any other path (outside the archive, '..', another name) is
-- forgotten: no file is ever read from it, and a version without a recorded copy is downloaded again
-- by the planner within a budget rather than read from a place nobody vouches for.
UPDATE sync.files
   SET archive_path = CASE
         WHEN NOT contains('/' || replace(archive_path, '\', '/') || '/', '/../')
          AND regexp_extract(replace(archive_path, '\', '/'), '([^/]+/[^/]+/[^/]+)$', 1) IN (
                exchange || '/' || symbol || '/' || strftime(session_date, '%Y-%m-%d') || '_' || file || '.csv.gz',
                exchange || '/' || symbol || '/' || strftime(session_date, '%Y-%m-%d') || '_' || file || '.' || left(sha256, 12) || '.csv.gz')
         THEN regexp_extract(replace(archive_path, '\', '/'), '([^/]+/[^/]+/[^/]+)$', 1)
         ELSE NULL
       END
 WHERE archive_path IS NOT NULL;
