module github.com/dvvhq/dvv

go 1.26.8
