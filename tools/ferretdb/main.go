package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on")
	dir := flag.String("data", "./data/ferretdb", "directory for the SQLite files")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  "sqlite",
		// _txlock=immediate: a write transaction takes the write lock as it begins, waiting up to busy_timeout;
		// a deferred one failed with SQLITE_BUSY under concurrent updates (measured, 20 writers).
		SQLiteURL: "file:" + *dir + "/?_txlock=immediate",
		Logger:    logger,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() { io.Copy(io.Discard, os.Stdin); stop() }()
	fmt.Println("ready " + f.MongoDBURI())
	f.Run(ctx)
}
