import type { ObjectLiteral, Repository } from 'typeorm';

/**
 * A value of a plain query's row as the ORM's own find gives it for the entity's `property` (SQLite
 * answers datetimes as text, MariaDB as Date; integers alike): for hot reads that skip the query builder.
 */
export function hydrated<E extends ObjectLiteral>(repo: Repository<E>, property: keyof E & string, value: unknown): unknown {
  return repo.manager.connection.driver.prepareHydratedValue(value, repo.metadata.findColumnWithPropertyName(property)!);
}
