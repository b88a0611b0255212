module unwprof/gosyms

go 1.18
