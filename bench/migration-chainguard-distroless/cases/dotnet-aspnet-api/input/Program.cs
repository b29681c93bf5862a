var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/healthz", () => "ok");
app.Run();
