module unwprof/gosym_ref

go 1.18
