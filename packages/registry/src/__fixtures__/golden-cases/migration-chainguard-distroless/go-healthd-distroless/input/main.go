package main

import (
	"flag"
	"log"
	"net/http"
)

func main() {
	listen := flag.String("listen", ":9000", "address")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("up")) })
	log.Fatal(http.ListenAndServe(*listen, nil))
}
