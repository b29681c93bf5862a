module example.com/healthd

go 1.23
