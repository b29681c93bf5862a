require "sinatra/base"

class Catalog < Sinatra::Base
  get "/healthz" do
    "ok"
  end
end
