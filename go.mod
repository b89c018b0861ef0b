module github.com/groundwork-iac/groundwork

go 1.26
