/* adlist: doubly linked list (see adlist.h). */
#include "adlist.h"
#include "zmalloc.h"

list *listCreate(void) { return zcalloc(sizeof(list)); }

void listEmpty(list *l) {
    listNode *n = l->head;
    while (n) {
        listNode *next = n->next;
        if (l->free) l->free(n->value);
        zfree(n);
        n = next;
    }
    l->head = l->tail = NULL;
    l->len = 0;
}

void listRelease(list *l) {
    listEmpty(l);
    zfree(l);
}

listNode *listAddNodeHead(list *l, void *value) {
    listNode *n = zmalloc(sizeof(*n));
    n->value = value;
    n->prev = NULL;
    n->next = l->head;
    if (l->head) l->head->prev = n;
    else l->tail = n;
    l->head = n;
    l->len++;
    return n;
}

listNode *listAddNodeTail(list *l, void *value) {
    listNode *n = zmalloc(sizeof(*n));
    n->value = value;
    n->next = NULL;
    n->prev = l->tail;
    if (l->tail) l->tail->next = n;
    else l->head = n;
    l->tail = n;
    l->len++;
    return n;
}

static void unlinkNode(list *l, listNode *n) {
    if (n->prev) n->prev->next = n->next;
    else l->head = n->next;
    if (n->next) n->next->prev = n->prev;
    else l->tail = n->prev;
    l->len--;
}

void listDelNode(list *l, listNode *node) {
    unlinkNode(l, node);
    if (l->free) l->free(node->value);
    zfree(node);
}

void listMoveNodeToTail(list *l, listNode *node) {
    if (l->tail == node) return;
    unlinkNode(l, node);
    node->next = NULL;
    node->prev = l->tail;
    if (l->tail) l->tail->next = node;
    else l->head = node;
    l->tail = node;
    l->len++;
}

listNode *listSearchKey(list *l, void *value) {
    for (listNode *n = l->head; n; n = n->next)
        if (n->value == value) return n;
    return NULL;
}

void listRewind(list *l, listIter *li) {
    li->next = l->head;
    li->forward = 1;
}

void listRewindTail(list *l, listIter *li) {
    li->next = l->tail;
    li->forward = 0;
}

listNode *listNext(listIter *li) {
    listNode *cur = li->next;
    if (cur) li->next = li->forward ? cur->next : cur->prev;
    return cur;
}
