/** Row types of the background-work tables. */

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface JobsTable {
  id: string;
  tenant_id: string;
  kind: string;
  /** JSON. */
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  /** When the job may run next. */
  run_at: number;
  /** The worker holding the lease while the job runs. */
  locked_by: string | null;
  /** The lease ends here; a running job whose lease ended belongs to a worker that died. */
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface SchedulesTable {
  name: string;
  next_run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_run_at: number | null;
}

export type JobsTables = {
  jobs: JobsTable;
  schedules: SchedulesTable;
};
