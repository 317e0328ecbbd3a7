module example

go 1.19

require anvil/anviltest v0.0.0

// The package ships in the anvil npm package; from your project: ./node_modules/anvil/dist/go/anviltest
replace anvil/anviltest => ../../dist/go/anviltest
