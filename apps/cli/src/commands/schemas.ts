import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";

export class SchemasCommand extends EvalgateCommand {
  static override paths = [["schemas"]];
  static override usage = Command.Usage({
    category: "Contracts",
    description: "List the wire types, or print one's JSON Schema (for rubrics and SUTs in other languages)",
    examples: [
      ["List every wire type", "evalgate schemas"],
      ["Print the JSON Schema a rubric's stdout must satisfy", "evalgate schemas rubric-response"],
    ],
  });

  name = Option.String({ required: false });

  protected async run(): Promise<number> {
    const { allJsonSchemas } = await import("@eval/models");
    const schemas = allJsonSchemas();
    if (this.name === undefined) {
      for (const name of Object.keys(schemas)) this.context.stdout.write(`${name}\n`);
      return 0;
    }
    const schema = schemas[this.name];
    if (schema === undefined) {
      throw new EvalError("EVAL_USAGE", `no wire type named "${this.name}"`, {
        hint: `choose one of: ${Object.keys(schemas).join(", ")}`,
      });
    }
    this.context.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
    return 0;
  }
}
