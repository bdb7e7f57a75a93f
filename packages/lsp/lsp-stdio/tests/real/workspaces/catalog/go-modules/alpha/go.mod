module example.com/alpha

go 1.19
