PRAGMA foreign_keys = OFF;
UPDATE runs SET map_id = 99 WHERE id = 1;
INSERT INTO maps (id, hash, name, width, height, cells, created_unix_ms) SELECT 99, hash || 'x', name, width, height, cells, 0 FROM maps WHERE id = 1;
UPDATE runs SET map_id = id;
INSERT INTO samples SELECT 42, repetition, allocate_ms, upload_ms, compute_ms, download_ms, total_ms FROM samples;
