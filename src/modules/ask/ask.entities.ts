import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Ask of 001 §3 (migration 1804000000000-content-extra.ts): a question and its answers. */
@Entity('asks')
export class AskEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'text' }) question: string;
}

@Entity('ask_answers')
@Index('IDX_ask_answers_ask', ['Id_ask', 'Id'])
export class AskAnswerEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Column({ type: 'integer' }) Id_ask: number;
  @Column({ type: 'text' }) answer: string;
}
