UPDATE recordings SET data = zeroblob(1000000), raw_size = 4000000000;
UPDATE maps SET cells = randomblob(900000);
