DROP TABLE samples;
