import Fastify from "fastify";

const app = Fastify({ logger: true });
app.get("/healthz", async () => ({ ok: true }));
app.get("/orders/:id", async (req) => ({ id: (req.params as { id: string }).id, status: "shipped" }));

await app.listen({ host: "0.0.0.0", port: Number(process.env.PORT ?? 3000) });
