import type { ObjectLiteral, Repository } from 'typeorm';

/**
 * A value of a plain query's row as the ORM's own find gives it for the entity's `property` (SQLite
 * answers datetimes as text, MariaDB as Date; integers alike): for hot reads that skip the query builder.
 */
export function hydrated<E extends ObjectLiteral>(repo: Repository<E>, property: keyof E & string, value: unknown): unknown {
  return repo.manager.connection.driver.prepareHydratedValue(value, repo.metadata.findColumnWithPropertyName(property)!);
}

/** A plain query's row as the ORM's find gives it: each of `properties` hydrated by `hydrated`. */
export function hydratedRow<E extends ObjectLiteral, K extends keyof E & string>(repo: Repository<E>, properties: readonly K[], raw: Record<string, unknown>): Pick<E, K> {
  const row = {} as Pick<E, K>;
  for (const p of properties) row[p] = hydrated(repo, p, raw[p]) as E[K];
  return row;
}

/** A value bound to a plain query as the ORM writes it to the entity's `property` (a Date as the driver stores it). */
export function persisted<E extends ObjectLiteral>(repo: Repository<E>, property: keyof E & string, value: unknown): unknown {
  return repo.manager.connection.driver.preparePersistentValue(value, repo.metadata.findColumnWithPropertyName(property)!);
}
