/* adlist: a plain doubly linked list of pointers (clients, reply blocks,
 * blocked clients per key, ...). */
#ifndef CORE_ADLIST_H
#define CORE_ADLIST_H

typedef struct listNode {
    struct listNode *prev, *next;
    void *value;
} listNode;

typedef struct list {
    listNode *head, *tail;
    unsigned long len;
    void (*free)(void *ptr);
} list;

typedef struct listIter {
    listNode *next;
    int forward;
} listIter;

#define listLength(l) ((l)->len)
#define listFirst(l) ((l)->head)
#define listLast(l) ((l)->tail)
#define listNodeValue(n) ((n)->value)

list *listCreate(void);
void listRelease(list *l);
void listEmpty(list *l);
listNode *listAddNodeHead(list *l, void *value);
listNode *listAddNodeTail(list *l, void *value);
void listDelNode(list *l, listNode *node);
/* Moves an already linked node to the tail (for LRU-like rotation). */
void listMoveNodeToTail(list *l, listNode *node);
listNode *listSearchKey(list *l, void *value);
void listRewind(list *l, listIter *li);
void listRewindTail(list *l, listIter *li);
listNode *listNext(listIter *li);

#endif
