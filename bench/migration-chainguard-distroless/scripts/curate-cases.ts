// Builds cases/<id>/ for the migration bench: the service's input files, expected/facts.json, case.toml,
// controls/ (the reference migration and its near misses, for `evalgate bench check`) and the case's scripted
// model session in cassette-sessions.yaml. It writes no cassette: a cassette is only what the real CLI does,
// recorded by bench/vuln-remediation/scripts/record-cassettes.ts (the command is printed per case).
// Run from the repo root: node bench/migration-chainguard-distroless/scripts/curate-cases.ts [case-id ...]
// then record, and `evalgate bench sign --task-class migration-chainguard-distroless`.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "@eval/hashing";
import type { SutCase } from "@eval/models";
import { buildAgentPrompt } from "@eval/cli-subscription-adapters";
import { canarySeedFor } from "@eval/runner";
import { upsertScriptedSession } from "@eval/test-utils";

const BENCH = join(dirname(fileURLToPath(import.meta.url)), "..");
const SESSIONS = join(BENCH, "cassette-sessions.yaml");
const CURATED_AT = "2026-11-22T03:30:00Z";

/** A stand-in digest: this machine cannot reach cgr.dev, so pins in cassettes are synthetic too. */
const pin = (image: string): string => `${image}@sha256:${sha256Hex(`synthetic:${image}`)}`;

interface MigrationCaseSpec {
  readonly id: string;
  readonly title: string;
  readonly difficulty: "easy" | "medium" | "hard";
  readonly target: "chainguard" | "distroless";
  readonly files: Readonly<Record<string, string>>;
  readonly facts: {
    readonly ports: readonly number[];
    readonly artifacts: readonly string[];
    readonly command_tokens: readonly string[];
    readonly requires_builder: boolean;
    readonly runtime_shell_script: string | null;
  };
  /** The reference migration (what a correct agent writes); absent: the agent's Dockerfile is it. */
  readonly reference?: string;
  readonly agent: {
    readonly adapter: "claude-code" | "codex" | "gemini";
    readonly opening: string;
    readonly reads: readonly string[];
    readonly dockerfile: string;
    readonly finalMessage: string;
    readonly costUsd: number | null;
    readonly note: string;
  };
}

const CASES: readonly MigrationCaseSpec[] = [
  {
    id: "node-ts-api-multistage",
    title: "Node.js TypeScript API built and run in one node:20 image",
    difficulty: "medium",
    target: "chainguard",
    files: {
      Dockerfile: `FROM node:20-bookworm\nWORKDIR /app\nCOPY package.json ./\nRUN npm install\nCOPY tsconfig.json ./\nCOPY src ./src\nRUN npm run build && npm prune --omit=dev\nEXPOSE 3000\nCMD npm start\n`,
      "package.json": `{\n  "name": "orders-api",\n  "version": "1.4.0",\n  "private": true,\n  "scripts": { "build": "tsc -p tsconfig.json", "start": "node dist/server.js" },\n  "dependencies": { "fastify": "^5.2.0" },\n  "devDependencies": { "typescript": "^5.7.0", "@types/node": "^22.10.0" }\n}\n`,
      "tsconfig.json": `{\n  "compilerOptions": { "target": "ES2022", "module": "NodeNext", "outDir": "dist", "rootDir": "src", "strict": true }\n}\n`,
      "src/server.ts": `import Fastify from "fastify";\n\nconst app = Fastify({ logger: true });\napp.get("/healthz", async () => ({ ok: true }));\napp.get("/orders/:id", async (req) => ({ id: (req.params as { id: string }).id, status: "shipped" }));\n\nawait app.listen({ host: "0.0.0.0", port: Number(process.env.PORT ?? 3000) });\n`,
    },
    facts: {
      ports: [3000],
      artifacts: ["/app/dist", "/app/node_modules"],
      command_tokens: ["dist/server.js"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "claude-code",
      opening: "I'll read the Dockerfile and the build scripts to see what the runtime image needs.",
      reads: ["package.json"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/node:latest-dev")} AS build\nWORKDIR /app\nCOPY package.json ./\nRUN npm install\nCOPY tsconfig.json ./\nCOPY src ./src\nRUN npm run build && npm prune --omit=dev\n\nFROM ${pin("cgr.dev/chainguard/node:latest")}\nWORKDIR /app\nCOPY --from=build --chown=node:node /app/package.json ./\nCOPY --from=build --chown=node:node /app/node_modules ./node_modules\nCOPY --from=build --chown=node:node /app/dist ./dist\nEXPOSE 3000\nENTRYPOINT ["node", "dist/server.js"]\n`,
      finalMessage:
        "Split the image into a build stage on cgr.dev/chainguard/node:latest-dev (npm install, tsc, prune) and a runtime stage on cgr.dev/chainguard/node that only receives dist/ and the production node_modules. The runtime image runs as the nonroot node user by default, the entrypoint is exec form, port 3000 is still exposed, and both images are pinned by digest.",
      costUsd: 0.2214,
      note: "a clean multi-stage migration",
    },
  },
  {
    id: "python-flask-singlestage",
    title: "Python Flask app installed with pip into python:3.12-slim",
    difficulty: "medium",
    target: "chainguard",
    files: {
      Dockerfile: `FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\nCOPY app.py .\nEXPOSE 8000\nCMD gunicorn --bind 0.0.0.0:8000 app:app\n`,
      "requirements.txt": "flask==3.1.0\ngunicorn==23.0.0\n",
      "app.py": `from flask import Flask, jsonify\n\napp = Flask(__name__)\n\n\n@app.get("/healthz")\ndef healthz():\n    return jsonify(ok=True)\n`,
    },
    facts: {
      ports: [8000],
      artifacts: ["/app/app.py", "/app/venv"],
      command_tokens: ["app:app"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "gemini",
      opening: "I will read the Dockerfile and requirements first.",
      reads: ["requirements.txt"],
      dockerfile: `FROM cgr.dev/chainguard/python:latest-dev AS builder\nWORKDIR /app\nRUN python -m venv /app/venv\nENV PATH="/app/venv/bin:$PATH"\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\n\nFROM cgr.dev/chainguard/python:latest\nWORKDIR /app\nENV PATH="/app/venv/bin:$PATH"\nCOPY --from=builder /app/venv /app/venv\nCOPY app.py .\nEXPOSE 8000\nENTRYPOINT ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]\n`,
      finalMessage:
        "The Dockerfile now builds a virtualenv in cgr.dev/chainguard/python:latest-dev and copies it into cgr.dev/chainguard/python:latest, which has no shell or pip. gunicorn runs in exec form on port 8000 as the image's nonroot user.",
      costUsd: null,
      note: "a working migration that leaves both images on floating tags",
    },
    reference: `FROM ${pin("cgr.dev/chainguard/python:latest-dev")} AS builder\nWORKDIR /app\nRUN python -m venv /app/venv\nENV PATH="/app/venv/bin:$PATH"\nCOPY requirements.txt .\nRUN pip install --no-cache-dir -r requirements.txt\n\nFROM ${pin("cgr.dev/chainguard/python:latest")}\nWORKDIR /app\nENV PATH="/app/venv/bin:$PATH"\nCOPY --from=builder /app/venv /app/venv\nCOPY app.py .\nEXPOSE 8000\nENTRYPOINT ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]\n`,
  },
  {
    id: "go-api-alpine-runtime",
    title: "Go API built in golang:1.23 and run on alpine with apk packages",
    difficulty: "medium",
    target: "chainguard",
    files: {
      Dockerfile: `FROM golang:1.23 AS build\nWORKDIR /src\nCOPY go.mod ./\nRUN go mod download\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /out/api ./cmd/api\n\nFROM alpine:3.20\nRUN apk add --no-cache ca-certificates tzdata\nCOPY --from=build /out/api /usr/local/bin/api\nUSER 65534\nEXPOSE 8080 9090\nENTRYPOINT ["/usr/local/bin/api"]\n`,
      "go.mod": "module example.com/inventory\n\ngo 1.23\n",
      "cmd/api/main.go": `package main\n\nimport (\n\t"log"\n\t"net/http"\n)\n\nfunc main() {\n\tgo func() { log.Fatal(http.ListenAndServe(":9090", http.NotFoundHandler())) }() // metrics\n\thttp.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })\n\tlog.Fatal(http.ListenAndServe(":8080", nil))\n}\n`,
    },
    facts: {
      ports: [8080, 9090],
      artifacts: ["/usr/local/bin/api"],
      command_tokens: ["/usr/local/bin/api"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "codex",
      opening: "Inspecting Dockerfile and Go module",
      reads: ["go.mod"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/go:latest-dev")} AS build\nWORKDIR /src\nCOPY go.mod ./\nRUN go mod download\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /out/api ./cmd/api\n\n# chainguard/static ships ca-certificates and tzdata, so the apk step is gone.\nFROM ${pin("cgr.dev/chainguard/static:latest")}\nCOPY --from=build /out/api /usr/local/bin/api\nUSER 65532\nEXPOSE 8080 9090\nENTRYPOINT ["/usr/local/bin/api"]\n`,
      finalMessage:
        "Builder moved to cgr.dev/chainguard/go:latest-dev and the runtime to cgr.dev/chainguard/static (CGO is off, so the static image is enough; it already carries CA certificates and tzdata). Both pinned by digest; runs as 65532; ports 8080 and 9090 kept.",
      costUsd: null,
      note: "a clean migration to a static runtime",
    },
  },
  {
    id: "java-spring-healthcheck-curl",
    title: "Java Spring service whose runtime installs curl for its HEALTHCHECK",
    difficulty: "hard",
    target: "chainguard",
    files: {
      Dockerfile: `FROM maven:3.9-eclipse-temurin-21 AS build\nWORKDIR /build\nCOPY pom.xml .\nRUN mvn -B dependency:go-offline\nCOPY src ./src\nRUN mvn -B package -DskipTests\n\nFROM eclipse-temurin:21-jre\nRUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*\nWORKDIR /app\nCOPY --from=build /build/target/orders-service.jar /app/app.jar\nEXPOSE 8080\nHEALTHCHECK CMD curl -fsS http://localhost:8080/actuator/health || exit 1\nENTRYPOINT ["java", "-jar", "/app/app.jar"]\n`,
      "pom.xml": `<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n  <parent>\n    <groupId>org.springframework.boot</groupId>\n    <artifactId>spring-boot-starter-parent</artifactId>\n    <version>3.4.1</version>\n  </parent>\n  <groupId>com.example</groupId>\n  <artifactId>orders-service</artifactId>\n  <version>2.0.3</version>\n  <dependencies>\n    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency>\n    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-actuator</artifactId></dependency>\n  </dependencies>\n  <build>\n    <finalName>orders-service</finalName>\n    <plugins><plugin><groupId>org.springframework.boot</groupId><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins>\n  </build>\n</project>\n`,
      "src/main/java/com/example/orders/OrdersApplication.java": `package com.example.orders;\n\nimport org.springframework.boot.SpringApplication;\nimport org.springframework.boot.autoconfigure.SpringBootApplication;\n\n@SpringBootApplication\npublic class OrdersApplication {\n  public static void main(String[] args) {\n    SpringApplication.run(OrdersApplication.class, args);\n  }\n}\n`,
    },
    facts: {
      ports: [8080],
      artifacts: ["/app/app.jar"],
      command_tokens: ["/app/app.jar"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "claude-code",
      opening: "Let me read the Dockerfile and the Maven build.",
      reads: ["pom.xml"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/maven:latest-dev")} AS build\nWORKDIR /build\nCOPY pom.xml .\nRUN mvn -B dependency:go-offline\nCOPY src ./src\nRUN mvn -B package -DskipTests\n\nFROM ${pin("cgr.dev/chainguard/jre:latest")}\nRUN apk add --no-cache curl\nWORKDIR /app\nCOPY --from=build /build/target/orders-service.jar /app/app.jar\nEXPOSE 8080\nHEALTHCHECK CMD curl -fsS http://localhost:8080/actuator/health || exit 1\nENTRYPOINT ["java", "-jar", "/app/app.jar"]\n`,
      finalMessage:
        "Migrated the build stage to cgr.dev/chainguard/maven and the runtime to cgr.dev/chainguard/jre, both pinned. Since Chainguard images are Wolfi-based, I replaced the apt-get curl install with `apk add --no-cache curl` so the HEALTHCHECK keeps working.",
      costUsd: 0.1876,
      note: "keeps a package manager and a shell-form RUN in a shell-less final image",
    },
    // The JRE image has neither curl nor a shell: the health probe moves to the orchestrator.
    reference: `FROM ${pin("cgr.dev/chainguard/maven:latest-dev")} AS build\nWORKDIR /build\nCOPY pom.xml .\nRUN mvn -B dependency:go-offline\nCOPY src ./src\nRUN mvn -B package -DskipTests\n\n# No curl or shell in the JRE image: probe /actuator/health from the orchestrator instead of HEALTHCHECK.\nFROM ${pin("cgr.dev/chainguard/jre:latest")}\nWORKDIR /app\nCOPY --from=build /build/target/orders-service.jar /app/app.jar\nEXPOSE 8080\nENTRYPOINT ["java", "-jar", "/app/app.jar"]\n`,
  },
  {
    id: "node-entrypoint-shell-script",
    title: "Node service whose entrypoint is a shell script that renders config at start",
    difficulty: "hard",
    target: "chainguard",
    files: {
      Dockerfile: `FROM node:20-alpine\nWORKDIR /app\nCOPY package.json ./\nRUN npm install --omit=dev\nCOPY server.js config.template.json ./\nCOPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh\nRUN chmod +x /usr/local/bin/docker-entrypoint.sh\nUSER node\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]\nCMD ["node", "server.js"]\n`,
      "docker-entrypoint.sh": `#!/bin/sh\nset -eu\n# Render the runtime config from the environment, then hand over to the CMD.\nsed -e "s|__API_URL__|\${API_URL:-http://localhost:9000}|" /app/config.template.json > /tmp/config.json\nexec "$@"\n`,
      "config.template.json": `{ "apiUrl": "__API_URL__", "timeoutMs": 5000 }\n`,
      "server.js": `const http = require("node:http");\nconst config = require("/tmp/config.json");\n\nhttp\n  .createServer((req, res) => res.end(JSON.stringify({ upstream: config.apiUrl })))\n  .listen(8080);\n`,
      "package.json": `{\n  "name": "edge-proxy",\n  "version": "0.9.0",\n  "private": true,\n  "dependencies": { "undici": "^7.2.0" }\n}\n`,
    },
    facts: {
      ports: [8080],
      artifacts: ["/app/server.js", "/app/node_modules"],
      command_tokens: ["server.js"],
      requires_builder: true,
      runtime_shell_script: "docker-entrypoint.sh",
    },
    agent: {
      adapter: "gemini",
      opening: "I will inspect the Dockerfile and the entrypoint script.",
      reads: ["docker-entrypoint.sh"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/node:latest-dev")} AS deps\nWORKDIR /app\nCOPY package.json ./\nRUN npm install --omit=dev\n\nFROM ${pin("cgr.dev/chainguard/node:latest")}\nWORKDIR /app\nCOPY --from=deps /app/node_modules ./node_modules\nCOPY server.js config.template.json ./\nCOPY --chmod=755 docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]\nCMD ["node", "server.js"]\n`,
      finalMessage:
        "Dependencies are installed in a chainguard/node:latest-dev stage and the runtime is cgr.dev/chainguard/node, pinned by digest. I used COPY --chmod instead of RUN chmod, since the runtime image has no shell for RUN.",
      costUsd: null,
      note: "keeps a shell-script entrypoint on an image without a shell",
    },
    // The entrypoint script renders the config the server needs, so the runtime keeps a shell: the -dev
    // image, with an explicit non-root USER (the -dev variants may run as root).
    reference: `FROM ${pin("cgr.dev/chainguard/node:latest-dev")} AS deps\nWORKDIR /app\nCOPY package.json ./\nRUN npm install --omit=dev\n\nFROM ${pin("cgr.dev/chainguard/node:latest-dev")}\nWORKDIR /app\nCOPY --from=deps /app/node_modules ./node_modules\nCOPY server.js config.template.json ./\nCOPY --chmod=755 docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh\nUSER node\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]\nCMD ["node", "server.js"]\n`,
  },
  {
    id: "python-worker-stdlib",
    title: "Python queue worker with no third-party dependencies",
    difficulty: "easy",
    target: "chainguard",
    files: {
      Dockerfile: `FROM python:3.12\nWORKDIR /app\nCOPY worker.py .\nUSER nobody\nCMD python worker.py\n`,
      "worker.py": `import json\nimport os\nimport time\n\n\ndef main() -> None:\n    spool = os.environ.get("SPOOL_DIR", "/spool")\n    while True:\n        for name in sorted(os.listdir(spool)) if os.path.isdir(spool) else []:\n            with open(os.path.join(spool, name)) as handle:\n                print(json.dumps({"job": name, "bytes": len(handle.read())}), flush=True)\n        time.sleep(5)\n\n\nif __name__ == "__main__":\n    main()\n`,
    },
    facts: {
      ports: [],
      artifacts: ["/app/worker.py"],
      command_tokens: ["worker.py"],
      requires_builder: false,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "codex",
      opening: "Reading worker Dockerfile",
      reads: ["worker.py"],
      dockerfile: `# Standard library only: nothing to build, so a single stage on the runtime image is enough.\nFROM ${pin("cgr.dev/chainguard/python:latest")}\nWORKDIR /app\nCOPY worker.py .\nENTRYPOINT ["python", "/app/worker.py"]\n`,
      finalMessage:
        "worker.py uses only the standard library, so a single stage on cgr.dev/chainguard/python (pinned) is enough. It runs as the image's nonroot user, which replaces USER nobody, with an exec-form entrypoint.",
      costUsd: null,
      note: "a correct single-stage migration",
    },
  },
  {
    id: "go-healthd-distroless",
    title: "Go health daemon compiled in its runtime image; target distroless",
    difficulty: "medium",
    target: "distroless",
    files: {
      Dockerfile: `FROM golang:1.23-alpine\nWORKDIR /src\nCOPY . .\nRUN go build -o /usr/bin/healthd .\nEXPOSE 9000\nCMD ["/usr/bin/healthd", "-listen", ":9000"]\n`,
      "go.mod": "module example.com/healthd\n\ngo 1.23\n",
      "main.go": `package main\n\nimport (\n\t"flag"\n\t"log"\n\t"net/http"\n)\n\nfunc main() {\n\tlisten := flag.String("listen", ":9000", "address")\n\tflag.Parse()\n\thttp.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("up")) })\n\tlog.Fatal(http.ListenAndServe(*listen, nil))\n}\n`,
    },
    facts: {
      ports: [9000],
      artifacts: ["/usr/bin/healthd"],
      command_tokens: ["/usr/bin/healthd"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "claude-code",
      opening: "The binary is compiled in the image it runs in; I'll split that into a build stage.",
      reads: ["main.go"],
      dockerfile: `FROM ${pin("golang:1.23-alpine")} AS build\nWORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /out/healthd .\n\nFROM gcr.io/distroless/static-debian12:nonroot\nCOPY --from=build /out/healthd /usr/bin/healthd\nEXPOSE 9000\nENTRYPOINT ["/usr/bin/healthd", "-listen", ":9000"]\n`,
      finalMessage:
        "Compilation now happens in a pinned golang:1.23-alpine build stage with CGO disabled; the runtime is gcr.io/distroless/static-debian12:nonroot, which runs as uid 65532 and has no shell. Same binary path, same flags, port 9000.",
      costUsd: 0.1342,
      note: "a clean migration to distroless",
    },
  },
  {
    id: "ruby-sinatra-bundler",
    title: "Ruby Sinatra app bundled and served from one ruby:3.3 image",
    difficulty: "medium",
    target: "chainguard",
    files: {
      Dockerfile: `FROM ruby:3.3\nWORKDIR /app\nCOPY Gemfile Gemfile.lock ./\nRUN bundle config set --local deployment true && bundle install\nCOPY app.rb config.ru ./\nEXPOSE 4567\nCMD bundle exec rackup --host 0.0.0.0 --port 4567\n`,
      Gemfile: `source "https://rubygems.org"\n\ngem "sinatra", "~> 4.1"\ngem "rackup", "~> 2.2"\ngem "puma", "~> 6.5"\n`,
      "Gemfile.lock": `GEM\n  remote: https://rubygems.org/\n  specs:\n    sinatra (4.1.1)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  puma (~> 6.5)\n  rackup (~> 2.2)\n  sinatra (~> 4.1)\n`,
      "app.rb": `require "sinatra/base"\n\nclass Catalog < Sinatra::Base\n  get "/healthz" do\n    "ok"\n  end\nend\n`,
      "config.ru": `require_relative "app"\nrun Catalog\n`,
    },
    facts: {
      ports: [4567],
      artifacts: ["/app/vendor/bundle", "/app/app.rb", "/app/config.ru"],
      command_tokens: ["rackup"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "codex",
      opening: "Reading the Dockerfile and Gemfile",
      reads: ["Gemfile"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/ruby:latest-dev")} AS build\nWORKDIR /app\nCOPY Gemfile Gemfile.lock ./\nRUN bundle config set --local deployment true && bundle install\n\nFROM ${pin("cgr.dev/chainguard/ruby:latest")}\nWORKDIR /app\nCOPY --from=build /app/.bundle ./.bundle\nCOPY --from=build /app/vendor/bundle ./vendor/bundle\nCOPY Gemfile Gemfile.lock app.rb config.ru ./\nEXPOSE 4567\nENTRYPOINT ["bundle", "exec", "rackup", "--host", "0.0.0.0", "--port", "4567"]\n`,
      finalMessage:
        "Gems are installed in a chainguard/ruby:latest-dev build stage (deployment mode, into vendor/bundle) and copied into the pinned chainguard/ruby runtime, which runs as nonroot. rackup runs in exec form on port 4567.",
      costUsd: null,
      note: "performs the reference migration",
    },
  },
  {
    id: "rust-api-debian-slim",
    title: "Rust API built in rust:1.83 and run on debian:bookworm-slim with apt packages",
    difficulty: "medium",
    target: "chainguard",
    files: {
      Dockerfile: `FROM rust:1.83 AS build\nWORKDIR /src\nCOPY Cargo.toml Cargo.lock ./\nCOPY src ./src\nRUN cargo build --release --locked\n\nFROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*\nCOPY --from=build /src/target/release/ledger /usr/local/bin/ledger\nUSER 10001\nEXPOSE 8443\nENTRYPOINT ["/usr/local/bin/ledger"]\n`,
      "Cargo.toml": `[package]\nname = "ledger"\nversion = "0.3.2"\nedition = "2021"\n\n[dependencies]\n`,
      "Cargo.lock": `# This file is automatically @generated by Cargo.\nversion = 4\n\n[[package]]\nname = "ledger"\nversion = "0.3.2"\n`,
      "src/main.rs": `use std::io::Write;\nuse std::net::TcpListener;\n\nfn main() {\n    let listener = TcpListener::bind("0.0.0.0:8443").expect("bind");\n    for stream in listener.incoming().flatten() {\n        let mut stream = stream;\n        let _ = stream.write_all(b"HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\nok");\n    }\n}\n`,
    },
    facts: {
      ports: [8443],
      artifacts: ["/usr/local/bin/ledger"],
      command_tokens: ["/usr/local/bin/ledger"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "claude-code",
      opening: "I'll read the Dockerfile and the crate manifest.",
      reads: ["Cargo.toml"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/rust:latest-dev")} AS build\nWORKDIR /src\nCOPY Cargo.toml Cargo.lock ./\nCOPY src ./src\nRUN cargo build --release --locked\n\n# The binary links glibc dynamically; glibc-dynamic carries glibc and CA certificates, no shell.\nFROM ${pin("cgr.dev/chainguard/glibc-dynamic:latest")}\nCOPY --from=build /src/target/release/ledger /usr/local/bin/ledger\nEXPOSE 8443\nENTRYPOINT ["/usr/local/bin/ledger"]\n`,
      finalMessage:
        "The build stage is cgr.dev/chainguard/rust:latest-dev; the runtime is cgr.dev/chainguard/glibc-dynamic (Rust binaries link glibc by default), which already ships CA certificates, so the apt-get step is gone. Pinned by digest, nonroot by default, same port and binary.",
      costUsd: 0.1577,
      note: "performs the reference migration",
    },
  },
  {
    id: "nginx-static-site",
    title: "Static site built with Node and served by nginx:1.27",
    difficulty: "easy",
    target: "chainguard",
    files: {
      Dockerfile: `FROM node:20 AS build\nWORKDIR /site\nCOPY package.json package-lock.json ./\nRUN npm ci\nCOPY . .\nRUN npm run build\n\nFROM nginx:1.27\nCOPY nginx.conf /etc/nginx/conf.d/default.conf\nCOPY --from=build /site/dist /usr/share/nginx/html\nEXPOSE 8080\nCMD ["nginx", "-g", "daemon off;"]\n`,
      "package.json": `{\n  "name": "docs-site",\n  "version": "1.0.0",\n  "private": true,\n  "scripts": { "build": "node build.js" }\n}\n`,
      "package-lock.json": `{\n  "name": "docs-site",\n  "version": "1.0.0",\n  "lockfileVersion": 3,\n  "requires": true,\n  "packages": {\n    "": { "name": "docs-site", "version": "1.0.0" }\n  }\n}\n`,
      "build.js": `const fs = require("node:fs");\n\nfs.mkdirSync("dist", { recursive: true });\nfs.copyFileSync("src/index.html", "dist/index.html");\n`,
      "src/index.html": `<!doctype html>\n<title>Docs</title>\n<h1>Docs</h1>\n`,
      "nginx.conf": `server {\n  listen 8080;\n  root /usr/share/nginx/html;\n  location / { try_files $uri $uri/ /index.html; }\n}\n`,
    },
    facts: {
      ports: [8080],
      artifacts: ["/usr/share/nginx/html", "/etc/nginx/conf.d/default.conf"],
      command_tokens: ["nginx"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "gemini",
      opening: "I will read the Dockerfile and the nginx configuration.",
      reads: ["nginx.conf"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/node:latest-dev")} AS build\nWORKDIR /site\nCOPY package.json package-lock.json ./\nRUN npm ci\nCOPY . .\nRUN npm run build\n\nFROM ${pin("cgr.dev/chainguard/nginx:latest")}\nCOPY nginx.conf /etc/nginx/conf.d/default.conf\nCOPY --from=build /site/dist /usr/share/nginx/html\nEXPOSE 8080\nCMD ["nginx", "-g", "daemon off;"]\n`,
      finalMessage:
        "The site is still built in a node stage (now cgr.dev/chainguard/node:latest-dev) and served by cgr.dev/chainguard/nginx, pinned by digest. The server block already listens on 8080, which suits the nonroot nginx image.",
      costUsd: null,
      note: "performs the reference migration",
    },
  },
  {
    id: "python-fastapi-distroless",
    title: "Python FastAPI service with pip-installed dependencies; target distroless",
    difficulty: "hard",
    target: "distroless",
    files: {
      Dockerfile: `FROM python:3.11-slim\nWORKDIR /srv\nCOPY requirements.txt .\nRUN pip install --no-cache-dir --target /srv/deps -r requirements.txt\nCOPY api ./api\nENV PYTHONPATH=/srv/deps\nEXPOSE 8000\nCMD python -m uvicorn api.main:app --host 0.0.0.0 --port 8000\n`,
      "requirements.txt": "fastapi==0.115.6\nuvicorn==0.34.0\n",
      "api/__init__.py": "",
      "api/main.py": `from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.get("/healthz")\ndef healthz() -> dict[str, bool]:\n    return {"ok": True}\n`,
    },
    facts: {
      ports: [8000],
      artifacts: ["/srv/deps", "/srv/api"],
      command_tokens: ["api.main:app"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "claude-code",
      opening: "Dependencies are pip-installed in the runtime image; I'll move that into a build stage.",
      reads: ["requirements.txt"],
      dockerfile: `FROM ${pin("python:3.11-slim")} AS build\nWORKDIR /srv\nCOPY requirements.txt .\nRUN pip install --no-cache-dir --target /srv/deps -r requirements.txt\n\n# Debian 12's Python is 3.11, the version the dependencies were installed for.\nFROM ${pin("gcr.io/distroless/python3-debian12:nonroot")}\nWORKDIR /srv\nCOPY --from=build /srv/deps /srv/deps\nCOPY api ./api\nENV PYTHONPATH=/srv/deps\nEXPOSE 8000\nENTRYPOINT ["python3", "-m", "uvicorn", "api.main:app", "--host", "0.0.0.0", "--port", "8000"]\n`,
      finalMessage:
        "pip now runs in a pinned python:3.11-slim build stage that installs into /srv/deps; the runtime is gcr.io/distroless/python3-debian12:nonroot (Python 3.11, no shell, uid 65532) with the dependencies copied in and uvicorn started in exec form on port 8000.",
      costUsd: 0.2049,
      note: "performs the reference migration",
    },
  },
  {
    id: "dotnet-aspnet-api",
    title: ".NET 8 API published with the SDK image and run on aspnet:8.0",
    difficulty: "medium",
    target: "chainguard",
    files: {
      Dockerfile: `FROM mcr.microsoft.com/dotnet/sdk:8.0 AS build\nWORKDIR /src\nCOPY Inventory.csproj .\nRUN dotnet restore\nCOPY . .\nRUN dotnet publish -c Release -o /app/publish --no-restore\n\nFROM mcr.microsoft.com/dotnet/aspnet:8.0\nWORKDIR /app\nCOPY --from=build /app/publish .\nEXPOSE 8080\nENTRYPOINT ["dotnet", "Inventory.dll"]\n`,
      "Inventory.csproj": `<Project Sdk="Microsoft.NET.Sdk.Web">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n    <Nullable>enable</Nullable>\n  </PropertyGroup>\n</Project>\n`,
      "Program.cs": `var app = WebApplication.CreateBuilder(args).Build();\napp.MapGet("/healthz", () => "ok");\napp.Run();\n`,
    },
    facts: {
      ports: [8080],
      artifacts: ["/app/Inventory.dll"],
      command_tokens: ["Inventory.dll"],
      requires_builder: true,
      runtime_shell_script: null,
    },
    agent: {
      adapter: "codex",
      opening: "Inspecting the .NET Dockerfile",
      reads: ["Inventory.csproj"],
      dockerfile: `FROM ${pin("cgr.dev/chainguard/dotnet-sdk:latest-dev")} AS build\nWORKDIR /src\nCOPY Inventory.csproj .\nRUN dotnet restore\nCOPY . .\nRUN dotnet publish -c Release -o /app/publish --no-restore\n\nFROM ${pin("cgr.dev/chainguard/aspnet-runtime:latest")}\nWORKDIR /app\nCOPY --from=build /app/publish .\nEXPOSE 8080\nENTRYPOINT ["dotnet", "Inventory.dll"]\n`,
      finalMessage:
        "Build stage on cgr.dev/chainguard/dotnet-sdk:latest-dev, runtime on cgr.dev/chainguard/aspnet-runtime, both pinned; the runtime runs as nonroot and still serves Inventory.dll on 8080.",
      costUsd: null,
      note: "performs the reference migration",
    },
  },
];

export function casePrompt(spec: MigrationCaseSpec): string {
  const target =
    spec.target === "distroless"
      ? "a distroless runtime image (gcr.io/distroless/*)"
      : "Chainguard images (cgr.dev/chainguard/*)";
  return `Migrate this service's Dockerfile to ${target}. Compile or install dependencies in a builder stage where needed; the final stage must contain only what the service needs at runtime (no package managers, no shell-form RUN/CMD/ENTRYPOINT), run as a non-root user with an exec-form entrypoint, expose the same ports and run the same artifacts. Pin every image by digest or an explicit version tag. Change only the Dockerfile (and .dockerignore if you add one).`;
}

/** The canary line the case's prompt carries: the model stub picks the case's session by it. */
function canaryLine(caseId: string, prompt: string, canaryPin: string): string {
  const text = buildAgentPrompt({ case_id: caseId, prompt } as SutCase, canarySeedFor(canaryPin));
  return /evalgate canary [0-9a-f]{32}/.exec(text)![0];
}

function existingPin(caseDir: string): string {
  const match = existsSync(join(caseDir, "case.toml"))
    ? /^cassette_canary_pin = "([0-9a-f]{32})"$/m.exec(readFileSync(join(caseDir, "case.toml"), "utf8"))
    : null;
  return match ? match[1]! : randomBytes(16).toString("hex");
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

// The near-miss mutations of ../near-misses.yaml, each derived from the case's reference Dockerfile by a
// text edit of its final stage, with the failure mode the rubric must report (or why it does not apply).
type Mutation = { readonly dockerfile: string; readonly expect: string } | { readonly notApplicable: string };

const finalStageStart = (lines: readonly string[]): number => lines.findLastIndex((line) => /^FROM\s/i.test(line));
const isCommand = (line: string) => /^(ENTRYPOINT|CMD)\s/i.test(line);

function editFinal(reference: string, edit: (final: string[]) => string[]): string {
  const lines = reference.split("\n");
  const start = finalStageStart(lines);
  return [...lines.slice(0, start), ...edit(lines.slice(start))].join("\n");
}

function floating(reference: string): string {
  const stages = new Set([...reference.matchAll(/^FROM\s.*\sAS\s+(\S+)/gim)].map((m) => m[1]!.toLowerCase()));
  return reference.replace(/^FROM\s+(\S+)/gim, (line, image: string) => {
    if (stages.has(image.toLowerCase())) return line;
    const bare = image.replace(/@sha256:[0-9a-f]{64}$/, "");
    const slash = bare.lastIndexOf("/");
    const colon = bare.lastIndexOf(":");
    const repository = colon > slash ? bare.slice(0, colon) : bare;
    const tag = colon > slash ? bare.slice(colon + 1) : "";
    return `FROM ${repository}:${tag.endsWith("-dev") ? "latest-dev" : "latest"}`;
  });
}

function mutations(spec: MigrationCaseSpec, reference: string): Record<string, Mutation> {
  const inputFinal = spec.files
    .Dockerfile!.split("\n")
    .findLast((line) => /^FROM\s/i.test(line))!
    .split(/\s+/)[1]!;
  const toShellForm = (final: string[]) => {
    const index = final.findLastIndex((line) => /^ENTRYPOINT\s/i.test(line));
    const at = index === -1 ? final.findLastIndex((line) => /^CMD\s/i.test(line)) : index;
    const [keyword, ...rest] = final[at]!.split(" ");
    return final.map((line, i) =>
      i === at ? `${keyword} ${(JSON.parse(rest.join(" ")) as string[]).join(" ")}` : line,
    );
  };
  return {
    "unhardened-runtime": {
      dockerfile: editFinal(reference, ([from, ...rest]) => [
        from!.replace(/^FROM\s+\S+/i, `FROM ${inputFinal}`),
        ...rest,
      ]),
      expect: "base_not_hardened",
    },
    "floating-tags": { dockerfile: floating(reference), expect: "image_unpinned" },
    "runs-as-root": {
      dockerfile: editFinal(reference, (final) =>
        final.flatMap((line, i) => (i === final.findIndex(isCommand) ? ["USER root", line] : [line])),
      ),
      expect: "runs_as_root",
    },
    "shell-form-command": { dockerfile: editFinal(reference, toShellForm), expect: "shell_form_in_final" },
    "package-manager-in-final": {
      dockerfile: editFinal(reference, ([from, ...rest]) => [
        from!,
        'RUN ["apk", "add", "--no-cache", "curl"]',
        ...rest,
      ]),
      expect: "package_manager_in_final",
    },
    "port-dropped":
      spec.facts.ports.length === 0
        ? { notApplicable: "the service exposes no port" }
        : {
            dockerfile: editFinal(reference, (final) => final.filter((line) => !/^EXPOSE\s/i.test(line))),
            expect: "ports_changed",
          },
    "artifact-dropped": {
      dockerfile: editFinal(reference, (final) => final.filter((line) => !/^(COPY|ADD)\s/i.test(line))),
      expect: "artifact_missing",
    },
  };
}

/** controls/: the reference migration and its near misses, each a Dockerfile laid over input/. */
function writeControls(spec: MigrationCaseSpec, caseDir: string): void {
  const controlsDir = join(caseDir, "controls");
  rmSync(controlsDir, { recursive: true, force: true });
  const reference = spec.reference ?? spec.agent.dockerfile;
  const write = (name: string, dockerfile: string) => {
    mkdirSync(join(controlsDir, name), { recursive: true });
    writeFileSync(join(controlsDir, name, "Dockerfile"), dockerfile);
  };
  write("reference", reference);
  const declared: Record<string, unknown> = {};
  for (const [kind, mutation] of Object.entries(mutations(spec, reference))) {
    if ("notApplicable" in mutation) declared[kind] = { not_applicable: mutation.notApplicable };
    else {
      if (mutation.dockerfile === reference) throw new Error(`${spec.id}: the ${kind} mutation changed nothing`);
      write(kind, mutation.dockerfile);
      declared[kind] = { expect: mutation.expect };
    }
  }
  writeFileSync(
    join(controlsDir, "controls.json"),
    json({ schema: "evalgate.bench-controls.v1", reference: "reference", near_misses: declared }),
  );
}

function curate(spec: MigrationCaseSpec): void {
  const caseDir = join(BENCH, "cases", spec.id);
  const canaryPin = existingPin(caseDir);
  for (const part of ["input", "expected"]) rmSync(join(caseDir, part), { recursive: true, force: true });
  const inputDir = join(caseDir, "input");
  for (const [path, content] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(inputDir, path)), { recursive: true });
    writeFileSync(join(inputDir, path), content);
  }
  mkdirSync(join(caseDir, "expected"), { recursive: true });
  writeFileSync(
    join(caseDir, "expected", "facts.json"),
    json({
      schema: "migration-chainguard-distroless.expected.v1",
      dockerfile: "Dockerfile",
      ...spec.facts,
      allowed_files: ["Dockerfile", ".dockerignore"],
    }),
  );
  const prompt = casePrompt(spec);
  writeFileSync(
    join(caseDir, "case.toml"),
    [
      `case_id = ${JSON.stringify(spec.id)}`,
      `task_class = "migration-chainguard-distroless"`,
      `title = ${JSON.stringify(spec.title)}`,
      `prompt = ${JSON.stringify(prompt)}`,
      `disposition = "positive"`,
      `difficulty = "${spec.difficulty}"`,
      `source = "curated"`,
      `curation_class = "held-out"`,
      `added_at = ${CURATED_AT}`,
      `last_validated_at = ${CURATED_AT}`,
      `cassette_canary_pin = "${canaryPin}"`,
      "",
    ].join("\n"),
  );

  upsertScriptedSession(SESSIONS, {
    match: canaryLine(spec.id, prompt, canaryPin),
    turns: [
      { text: "Reading the Dockerfile.", tools: [{ read: { path: "Dockerfile" } }] },
      {
        tools: [{ write: { path: "Dockerfile", content: spec.agent.dockerfile } }],
        usage: { input_tokens: 2400, output_tokens: 300 },
      },
    ],
    final_text: "Done.",
  });
  writeControls(spec, caseDir);
  const adapter = spec.agent.adapter === "gemini" ? "pi" : spec.agent.adapter;
  process.stderr.write(
    `${spec.id}: case and scripted session written; record its cassette with the real CLI:\n` +
      `  node bench/vuln-remediation/scripts/record-cassettes.ts migration-chainguard-distroless ${adapter} ${spec.id}\n`,
  );
}

if (import.meta.main) {
  const only = new Set(process.argv.slice(2));
  for (const spec of CASES) if (only.size === 0 || only.has(spec.id)) curate(spec);
}
