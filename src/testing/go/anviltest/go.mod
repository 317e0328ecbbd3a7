module anvil/anviltest

go 1.19
