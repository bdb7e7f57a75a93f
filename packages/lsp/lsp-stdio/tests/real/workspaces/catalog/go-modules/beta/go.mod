module example.com/beta

go 1.19
