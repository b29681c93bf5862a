package main

import (
	"log"
	"net/http"
)

func main() {
	go func() { log.Fatal(http.ListenAndServe(":9090", http.NotFoundHandler())) }() // metrics
	http.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	log.Fatal(http.ListenAndServe(":8080", nil))
}
