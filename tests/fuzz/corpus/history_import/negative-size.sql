UPDATE recordings SET raw_size = -1;
UPDATE maps SET width = -5 WHERE id = 2;
