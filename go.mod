module github.com/groundwork-iac/groundwork

go 1.26

require github.com/google/go-cmp v0.7.0 // indirect
