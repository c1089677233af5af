/** The database a migration runs on: the one difference a migration may ask about. */
export type Engine = 'sqlite' | 'postgres';
