UPDATE maps SET width = 65535, height = 65535 WHERE id = 1;
