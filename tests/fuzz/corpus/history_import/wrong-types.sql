UPDATE runs SET created_unix_ms = 'yesterday', start_x = x'00ff', cost = 'cheap', map_id = 3.5;
UPDATE samples SET total_ms = 'slow';
UPDATE events SET start_ns = NULL, payload = x'0001';
