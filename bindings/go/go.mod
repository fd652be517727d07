module ai00

go 1.19
