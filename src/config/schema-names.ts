/**
 * The names a zod schema allows at a path of the file it checks: the keys of the map there, and
 * the words a value there may be (an enum's, a literal's). They are what a misspelt key or word
 * is compared with, for "did you mean". Reads zod's own definitions (`_zod.def`), its stable
 * introspection surface in zod 4; a shape this does not know gives no names, never an error.
 */
import type { z } from 'zod';

interface Node {
  _zod: { def: Def };
}
interface Def {
  type: string;
  shape?: Record<string, Node>;
  valueType?: Node;
  element?: Node;
  items?: Node[];
  innerType?: Node;
  in?: Node;
  options?: Node[];
  left?: Node;
  right?: Node;
  getter?: () => Node;
  entries?: Record<string, unknown>;
  values?: unknown[];
}

/** The schemas a value may be checked by: wrappers (optional, default, a transform) opened, unions spread. */
function open(node: Node): Node[] {
  const def = node._zod.def;
  if (def.innerType) return open(def.innerType);
  if (def.type === 'pipe' && def.in) return open(def.in);
  if (def.type === 'union' && def.options) return def.options.flatMap(open);
  if (def.type === 'intersection' && def.left && def.right) return [...open(def.left), ...open(def.right)];
  if (def.type === 'lazy' && def.getter) return open(def.getter());
  return [node];
}

function at(schema: z.ZodType, path: PropertyKey[]): Node[] {
  let nodes = open(schema as unknown as Node);
  for (const key of path) {
    nodes = nodes.flatMap((n) => {
      const def = n._zod.def;
      const next =
        def.type === 'object'
          ? def.shape?.[String(key)]
          : def.type === 'record'
            ? def.valueType
            : def.type === 'array'
              ? def.element
              : def.type === 'tuple'
                ? def.items?.[Number(key)]
                : undefined;
      return next ? open(next) : [];
    });
  }
  return nodes;
}

/** The keys a map at `path` may have (none where the schema takes any key, or no map). */
export function keysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  const keys = at(schema, path).flatMap((n) =>
    n._zod.def.type === 'object' ? Object.keys(n._zod.def.shape ?? {}) : [],
  );
  return [...new Set(keys)];
}

/** The words a value at `path` may be: an enum's options, a literal's value. */
export function wordsAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  const words = at(schema, path).flatMap((n) => {
    const def = n._zod.def;
    if (def.type === 'enum') return Object.values(def.entries ?? {});
    if (def.type === 'literal') return def.values ?? [];
    return [];
  });
  return [...new Set(words.filter((w): w is string => typeof w === 'string'))];
}
