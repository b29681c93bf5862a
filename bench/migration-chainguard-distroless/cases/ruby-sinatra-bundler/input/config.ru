require_relative "app"
run Catalog
