// Task phrasings for `pnpm bench tool-search`, written for this bench in our own words: what a model
// might type into tool_search when it needs a tool of one of the real servers the bench mounts. Each
// names the one tool that should come back in the top five.

export interface Phrasing {
  readonly query: string
  readonly expect: string
}

const gh = (tool: string) => `mcp__github__${tool}`
const gl = (tool: string) => `mcp__gitlab__${tool}`
const fs = (tool: string) => `mcp__filesystem__${tool}`
const mem = (tool: string) => `mcp__memory__${tool}`
const maps = (tool: string) => `mcp__maps__${tool}`
const slack = (tool: string) => `mcp__slack__${tool}`
const ev = (tool: string) => `mcp__everything__${tool}`

export const PHRASINGS: readonly Phrasing[] = [
  // GitHub
  { query: 'open a new github issue', expect: gh('create_issue') },
  { query: 'file a bug report on a github repository', expect: gh('create_issue') },
  { query: 'comment on an existing github issue', expect: gh('add_issue_comment') },
  { query: 'close a github issue or change its labels', expect: gh('update_issue') },
  { query: 'list the open issues of a github repo', expect: gh('list_issues') },
  { query: 'read one github issue by number', expect: gh('get_issue') },
  { query: 'search issues and pull requests across github', expect: gh('search_issues') },
  { query: 'open a pull request on github', expect: gh('create_pull_request') },
  { query: 'merge a github pull request', expect: gh('merge_pull_request') },
  { query: 'which files does this pull request change', expect: gh('get_pull_request_files') },
  { query: 'are the checks passing on the pull request', expect: gh('get_pull_request_status') },
  { query: 'review a pull request and approve it', expect: gh('create_pull_request_review') },
  { query: 'read the review comments of a pull request', expect: gh('get_pull_request_comments') },
  { query: 'list reviews of a pull request', expect: gh('get_pull_request_reviews') },
  { query: 'bring a pull request branch up to date with base', expect: gh('update_pull_request_branch') },
  { query: 'show the details of a pull request', expect: gh('get_pull_request') },
  { query: 'list pull requests of a github repository', expect: gh('list_pull_requests') },
  { query: 'find github repositories about a topic', expect: gh('search_repositories') },
  { query: 'create a new repository on github', expect: gh('create_repository') },
  { query: 'fork a github repository', expect: gh('fork_repository') },
  { query: 'make a new branch on github', expect: gh('create_branch') },
  { query: 'commit history of a github branch', expect: gh('list_commits') },
  { query: 'read a file from a github repo', expect: gh('get_file_contents') },
  { query: 'write or update one file in a github repository', expect: gh('create_or_update_file') },
  { query: 'push several files to github in one commit', expect: gh('push_files') },
  { query: 'search code across github', expect: gh('search_code') },
  { query: 'find a github user', expect: gh('search_users') },
  // GitLab
  { query: 'open an issue in a gitlab project', expect: gl('create_issue') },
  { query: 'create a merge request', expect: gl('create_merge_request') },
  { query: 'fork a gitlab project into my namespace', expect: gl('fork_repository') },
  { query: 'new branch in gitlab', expect: gl('create_branch') },
  { query: 'read a file of a gitlab project', expect: gl('get_file_contents') },
  { query: 'push files to a gitlab project', expect: gl('push_files') },
  { query: 'search gitlab projects', expect: gl('search_repositories') },
  { query: 'create a gitlab project', expect: gl('create_repository') },
  { query: 'update a file in gitlab', expect: gl('create_or_update_file') },
  // Filesystem
  { query: 'read a text file from disk', expect: fs('read_text_file') },
  { query: 'show the first lines of a file', expect: fs('read_text_file') },
  { query: 'read an image file as base64', expect: fs('read_media_file') },
  { query: 'read several files at once', expect: fs('read_multiple_files') },
  { query: 'write a new file with this content', expect: fs('write_file') },
  { query: 'overwrite a file on disk', expect: fs('write_file') },
  { query: 'edit lines in a text file and show a diff', expect: fs('edit_file') },
  { query: 'make a directory', expect: fs('create_directory') },
  { query: 'mkdir nested folders', expect: fs('create_directory') },
  { query: 'list the files in a folder', expect: fs('list_directory') },
  { query: 'list a directory with file sizes', expect: fs('list_directory_with_sizes') },
  { query: 'recursive tree of a directory as json', expect: fs('directory_tree') },
  { query: 'rename or move a file', expect: fs('move_file') },
  { query: 'find files matching a glob pattern', expect: fs('search_files') },
  { query: 'file size and modification time', expect: fs('get_file_info') },
  { query: 'which directories am I allowed to access', expect: fs('list_allowed_directories') },
  // Memory (knowledge graph)
  { query: 'add entities to the knowledge graph', expect: mem('create_entities') },
  { query: 'remember a new person in memory', expect: mem('create_entities') },
  { query: 'relate two entities in the graph', expect: mem('create_relations') },
  { query: 'add facts about an existing entity', expect: mem('add_observations') },
  { query: 'add observations to a node', expect: mem('add_observations') },
  { query: 'forget an entity', expect: mem('delete_entities') },
  { query: 'remove an observation from an entity', expect: mem('delete_observations') },
  { query: 'delete a relation between entities', expect: mem('delete_relations') },
  { query: 'dump the whole knowledge graph', expect: mem('read_graph') },
  { query: 'search memory nodes for a word', expect: mem('search_nodes') },
  { query: 'open graph nodes by name', expect: mem('open_nodes') },
  // Google Maps
  { query: 'geocode an address to latitude and longitude', expect: maps('maps_geocode') },
  { query: 'coordinates of a street address', expect: maps('maps_geocode') },
  { query: 'what address is at these coordinates', expect: maps('maps_reverse_geocode') },
  { query: 'find restaurants near a location', expect: maps('maps_search_places') },
  { query: 'details of a place by its place id', expect: maps('maps_place_details') },
  { query: 'travel time between several origins and destinations', expect: maps('maps_distance_matrix') },
  { query: 'elevation of a point on earth', expect: maps('maps_elevation') },
  { query: 'driving directions from A to B', expect: maps('maps_directions') },
  { query: 'route between two points', expect: maps('maps_directions') },
  // Slack
  { query: 'send a message to a slack channel', expect: slack('slack_post_message') },
  { query: 'post in slack', expect: slack('slack_post_message') },
  { query: 'reply in a slack thread', expect: slack('slack_reply_to_thread') },
  { query: 'react with an emoji to a slack message', expect: slack('slack_add_reaction') },
  { query: 'list slack channels', expect: slack('slack_list_channels') },
  { query: 'recent messages of a slack channel', expect: slack('slack_get_channel_history') },
  { query: 'all replies in a slack thread', expect: slack('slack_get_thread_replies') },
  { query: 'list the users of the slack workspace', expect: slack('slack_get_users') },
  { query: 'profile of a slack user', expect: slack('slack_get_user_profile') },
  // Sequential thinking
  { query: 'think step by step through a hard problem', expect: 'mcp__thinking__sequentialthinking' },
  { query: 'reflective problem solving with revisable thoughts', expect: 'mcp__thinking__sequentialthinking' },
  // server-everything
  { query: 'echo a message back', expect: ev('echo') },
  { query: 'add two numbers', expect: ev('get-sum') },
  { query: 'sum of a and b', expect: ev('get-sum') },
  { query: 'print the environment variables of the server', expect: ev('get-env') },
  { query: 'a small test image', expect: ev('get-tiny-image') },
  { query: 'gzip compress a file', expect: ev('gzip-file-as-resource') },
  { query: 'long running operation with progress', expect: ev('trigger-long-running-operation') },
  { query: 'turn simulated logging on', expect: ev('toggle-simulated-logging') },
  { query: 'toggle resource subscription updates', expect: ev('toggle-subscriber-updates') },
  { query: 'structured content with an output schema', expect: ev('get-structured-content') },
  { query: 'links to resources', expect: ev('get-resource-links') },
  { query: 'a reference to one resource', expect: ev('get-resource-reference') },
  { query: 'message with annotations', expect: ev('get-annotated-message') },
  { query: 'deep research on a topic', expect: ev('simulate-research-query') },
  // Parameter names and mixed wording
  { query: 'tool that takes an issue_number', expect: gh('get_issue') },
  { query: 'thread_ts reply', expect: slack('slack_reply_to_thread') },
  { query: 'excludePatterns directory tree', expect: fs('directory_tree') },
  { query: 'merge_method squash', expect: gh('merge_pull_request') },
  { query: 'origins destinations mode', expect: maps('maps_distance_matrix') },
  { query: 'entityNames delete', expect: mem('delete_entities') },
  { query: 'place_id lookup', expect: maps('maps_place_details') },
  { query: 'source_branch target_branch merge request', expect: gl('create_merge_request') },
]
