import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** Server of 000 §3. sshpass, sshkey, sshkey_pass and cluster_key hold SecretBox-sealed values. */
@Entity('servers')
@Unique('UQ_servers_name', ['name'])
export class ServerEntity {
  @PrimaryGeneratedColumn() Id: number;
  @Index('IDX_servers_type')
  @Column({ type: 'integer' }) type: number;
  @Index('IDX_servers_cod')
  @Column({ type: 'integer', default: 0 }) cod: number;
  @Column({ type: 'varchar', length: 128 }) name: string;
  @Column({ type: 'integer', default: 1 }) status: number;
  @Column({ type: 'varchar', length: 64, default: '' }) ip: string;
  @Column({ type: 'varchar', length: 64, default: '' }) ip_local: string;
  @Column({ type: 'varchar', length: 64, default: '' }) sshlogin: string;
  @Column({ type: 'text', nullable: true }) sshpass: string | null;
  @Column({ type: 'text', nullable: true }) sshkey: string | null;
  @Column({ type: 'text', nullable: true }) sshkey_pass: string | null;
  @Column({ type: 'integer', default: 20001 }) sshport: number;
  @Column({ type: 'text', nullable: true }) cluster_key: string | null;
  @Column({ type: 'integer', default: 0 }) number_in_nginx: number;
  @Column({ type: 'integer', default: 0 }) balance_db: number;
  @Column({ type: 'integer', default: 0 }) balance_cache: number;
  @Column({ type: 'integer', default: 0 }) balance_memcache: number;
  @Column({ type: 'integer', default: 0 }) balance_web: number;
  @Column({ type: 'integer', default: 0 }) read_nginx_log_firewall: number;
  /** Proxies: the nginx access log the firewall worker reads. */
  @Column({ type: 'varchar', length: 255, default: '/var/log/nginx/access.log' }) nginx_log: string;
  /** Base URL of the node's agent (docs/agent.md); empty: http://{ip_local or ip}:{NODE_AGENT_PORT}. */
  @Column({ type: 'varchar', length: 255, default: '' }) agent_url: string;
}
