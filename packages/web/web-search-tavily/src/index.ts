export const name = 'web-search-tavily'
